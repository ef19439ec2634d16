import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAI as createOpenAIv3 } from '@ai-sdk/openai-v3';
import { FunctionTool as AdkFunctionTool, LlmAgent, LogLevel, setLogLevel } from '@google/adk';
import { tool as langchainTool } from '@langchain/core/tools';
import type { JSONSchema } from '@langchain/core/utils/json_schema';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { Agent as MastraAgent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { Agent as OpenAIAgent, OpenAIProvider, tool as openaiTool } from '@openai/agents';
import {
  FunctionTool as StrandsFunctionTool,
  type JSONSchema as StrandsSchema,
} from '@strands-agents/sdk';
import { tool as aiTool, type JSONSchema7, jsonSchema } from 'ai';
import OpenAI from 'openai';
import * as z from 'zod';
import { offlineBedrock } from '../../../examples/strands/bedrock.js';
import type { Agent } from '../../../lib/core/index.js';
import { adkAgent, geminiModel } from '../../../lib/frameworks/adk/index.js';
import { aiSdkAgent } from '../../../lib/frameworks/ai-sdk/index.js';
import { langgraphAgent } from '../../../lib/frameworks/langgraph/index.js';
import { mastraAgent } from '../../../lib/frameworks/mastra/index.js';
import { jsonOnlySchema } from '../../../lib/frameworks/mastra/tools.js';
import { OpenAIRunner, openaiAgent } from '../../../lib/frameworks/openai/index.js';
import { strandsAgent } from '../../../lib/frameworks/strands/index.js';

/**
 * Each of the six runners' agent named `assistant`, on the scripted model server, with one
 * *native* tool `lookup` (the framework's own, never our executor) whose body the test gives.
 */

// ADK logs every model request at INFO.
setLogLevel(LogLevel.ERROR);

export type Body = (args: { city: string }) => Promise<string>;

const DESCRIPTION = 'Looks a city up';
const PARAMETERS = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};

/** Each runner's agent named `assistant` with one native tool `lookup` running `body`. */
export interface NativeRunner {
  readonly name: string;
  agent(url: string, body: Body): Agent | Promise<Agent>;
}

export const nativeRunners: NativeRunner[] = [
  {
    name: 'openai',
    agent: (url, body) => {
      const client = new OpenAI({ apiKey: 'test-key', baseURL: url, maxRetries: 0 });
      const lookup = openaiTool({
        name: 'lookup',
        description: DESCRIPTION,
        parameters: z.object({ city: z.string() }),
        execute: (args) => body(args),
      });
      const native = new OpenAIAgent({
        name: 'assistant',
        model: 'scripted-model',
        tools: [lookup],
      });
      const modelProvider = new OpenAIProvider({ openAIClient: client, useResponses: true });
      return openaiAgent(native, { runner: new OpenAIRunner({ runConfig: { modelProvider } }) });
    },
  },
  {
    name: 'ai-sdk',
    agent: (url, body) =>
      aiSdkAgent({
        name: 'assistant',
        model: createOpenAI({ baseURL: url, apiKey: 'test-key' })('scripted-model'),
        tools: {
          lookup: aiTool<{ city: string }, string, Record<string, unknown>>({
            description: DESCRIPTION,
            inputSchema: jsonSchema<{ city: string }>(PARAMETERS as JSONSchema7),
            execute: (args) => body(args),
          }),
        },
      }),
  },
  {
    name: 'langgraph',
    agent: (url, body) =>
      langgraphAgent({
        name: 'assistant',
        graph: createReactAgent({
          llm: new ChatOpenAI({
            model: 'scripted-model',
            apiKey: 'test-key',
            configuration: { baseURL: url },
            maxRetries: 0,
          }),
          tools: [
            langchainTool(async (args: { city: string }) => body(args), {
              name: 'lookup',
              description: DESCRIPTION,
              schema: PARAMETERS as JSONSchema,
            }),
          ],
        }),
      }),
  },
  {
    name: 'adk',
    agent: (url, body) =>
      adkAgent(
        new LlmAgent({
          name: 'assistant',
          model: geminiModel({
            model: 'gemini-2.5-flash',
            apiKey: 'test-key',
            baseUrl: url.replace(/\/v1$/, ''),
          }),
          tools: [
            new AdkFunctionTool({
              name: 'lookup',
              description: DESCRIPTION,
              parameters: PARAMETERS as never,
              execute: (args) => body(args as { city: string }),
            }),
          ],
        }),
      ),
  },
  {
    name: 'strands',
    agent: (url, body) =>
      strandsAgent({
        name: 'assistant',
        model: offlineBedrock(url),
        tools: [
          new StrandsFunctionTool({
            name: 'lookup',
            description: DESCRIPTION,
            inputSchema: PARAMETERS as StrandsSchema,
            callback: (input) => body(input as { city: string }),
          }),
        ],
      }),
  },
  {
    name: 'mastra',
    agent: (url, body) =>
      mastraAgent(
        new MastraAgent({
          id: 'assistant',
          name: 'assistant',
          instructions: 'You are a test agent.',
          model: createOpenAIv3({ baseURL: url, apiKey: 'test-key' })('scripted-model'),
          tools: {
            lookup: createTool({
              id: 'lookup',
              description: DESCRIPTION,
              inputSchema: jsonOnlySchema(PARAMETERS),
              execute: (args: unknown) => body(args as { city: string }),
            } as Parameters<typeof createTool>[0]),
          },
        }),
      ),
  },
];
