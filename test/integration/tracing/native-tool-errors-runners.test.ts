import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAI as createOpenAIv3 } from '@ai-sdk/openai-v3';
import { FunctionTool as AdkFunctionTool, LlmAgent, LogLevel, setLogLevel } from '@google/adk';
import { tool as langchainTool } from '@langchain/core/tools';
import type { JSONSchema } from '@langchain/core/utils/json_schema';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { Agent as MastraAgent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import {
  FunctionTool as StrandsFunctionTool,
  type JSONSchema as StrandsSchema,
} from '@strands-agents/sdk';
import { tool as aiTool, type JSONSchema7, jsonSchema } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offlineBedrock } from '../../../examples/strands/bedrock.js';
import { type Agent, Runtime } from '../../../lib/core/index.js';
import { adkAgent, geminiModel } from '../../../lib/frameworks/adk/index.js';
import { aiSdkAgent } from '../../../lib/frameworks/ai-sdk/index.js';
import { langgraphAgent } from '../../../lib/frameworks/langgraph/index.js';
import { mastraAgent } from '../../../lib/frameworks/mastra/index.js';
import { jsonOnlySchema } from '../../../lib/frameworks/mastra/tools.js';
import { strandsAgent } from '../../../lib/frameworks/strands/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { createTracer, flushTracer, type MultiTracer } from '../../../lib/tracing/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { splitLines, startFakeDaemon } from '../../unit/tracing/helpers.js';
import { startOtlpReceiver } from './otlp-receiver.js';

/**
 * A native tool (the framework's own, never our executor) that throws is a failure in every
 * backend for each runner, though the framework hands the model an error and the run goes on:
 * OTel status ERROR with `error.type` and an exception event, an X-Ray `fault` with the cause,
 * and `ToolErrors = 1` in the run's EMF line. The OpenAI runner's case is native-tool-errors.test.ts.
 */

setLogLevel(LogLevel.ERROR);
const server = useScriptedModelServer();

type Body = (args: { city: string }) => Promise<string>;
const DESCRIPTION = 'Looks a city up';
const PARAMETERS = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};

/** Each runner's agent named `assistant` with one native tool `lookup` running `body`. */
const runners: { name: string; agent: (url: string, body: Body) => Agent }[] = [
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

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let daemon: Awaited<ReturnType<typeof startFakeDaemon>>;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
  daemon = await startFakeDaemon();
});
afterEach(async () => {
  await receiver.close();
  await daemon.close();
});

async function runWithTool(agent: (url: string, body: Body) => Agent, body: Body) {
  const lines: string[] = [];
  const tracer = createTracer({
    env: {
      AGENT_KERNEL_TRACING: 'cloudwatch,otlp',
      AWS_XRAY_DAEMON_ADDRESS: daemon.address,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    },
    sink: (line) => lines.push(line),
  });
  const runtime = new Runtime({
    sessions: new InMemorySessionStore(),
    agents: [agent(server.url, body)],
    tracer,
  });
  server.push(
    { toolCalls: [{ id: 'call_l1', name: 'lookup', arguments: { city: 'Paris' } }] },
    { text: 'Could not look it up.' },
  );
  const reply = await runtime.run('assistant', 's-native', 'Look Paris up');
  await flushTracer(tracer);
  // The run's segment, the tool's and the two model calls' subsegments.
  const docs = await daemon.waitFor(4);
  await (tracer as MultiTracer).close();
  const toolSpans = receiver
    .spans()
    .filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
  const toolDocs = docs.filter((d) => d.annotations?.kind === 'tool');
  const runEmf = splitLines(lines).emf.find((l) => 'ToolCalls' in l);
  // The model read the tool's outcome: the second request carries it.
  const toolResultSent = JSON.stringify(server.requests.at(-1)?.body ?? {});
  return { reply, toolSpans, toolDocs, runEmf, toolResultSent };
}

describe.each(runners)('a native tool of the $name runner', ({ agent }) => {
  it('that throws is an error in OTel, X-Ray and EMF while the run completes', async () => {
    // Act
    const { reply, toolSpans, toolDocs, runEmf, toolResultSent } = await runWithTool(
      agent,
      async () => {
        throw new TypeError('geocoder unreachable');
      },
    );

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'Could not look it up.' });
    expect(toolResultSent).toContain('geocoder unreachable');
    expect(toolSpans).toHaveLength(1);
    const [span] = toolSpans;
    expect(span?.status?.code).toBe(2);
    expect(span?.attributes['error.type']).toBe('TypeError');
    expect(span?.attributes['gen_ai.tool.name']).toBe('lookup');
    const exception = span?.events?.find((e) => e.name === 'exception');
    const message = exception?.attributes?.find((a) => a.key === 'exception.message');
    expect(message?.value.stringValue).toContain('geocoder unreachable');
    expect(toolDocs).toHaveLength(1);
    expect(toolDocs[0]?.fault).toBe(true);
    expect(toolDocs[0]?.cause?.exceptions?.[0]).toMatchObject({ type: 'TypeError' });
    expect(runEmf).toMatchObject({ ToolCalls: 1, ToolErrors: 1 });
  });

  it('that is throttled is a throttle in X-Ray, not a fault', async () => {
    // Act
    const { toolSpans, toolDocs, runEmf } = await runWithTool(agent, async () => {
      const err = new Error('slow down');
      err.name = 'ThrottlingException';
      throw err;
    });

    // Assess
    expect(toolSpans[0]?.attributes['error.type']).toBe('ThrottlingException');
    expect(toolDocs[0]).toMatchObject({ error: true, throttle: true });
    expect(toolDocs[0]?.fault).toBeUndefined();
    expect(runEmf).toMatchObject({ ToolErrors: 1 });
  });

  it('that returns is a success in every backend', async () => {
    // Act
    const { reply, toolSpans, toolDocs, runEmf } = await runWithTool(
      agent,
      async () => 'Paris, FR',
    );

    // Assess
    expect(reply.status).toBe('completed');
    expect(toolSpans).toHaveLength(1);
    expect(toolSpans[0]?.status?.code ?? 0).toBe(0);
    expect(toolSpans[0]?.attributes['error.type']).toBeUndefined();
    expect(toolDocs[0]?.fault).toBeUndefined();
    expect(toolDocs[0]?.error).toBeUndefined();
    expect(runEmf).toMatchObject({ ToolCalls: 1, ToolErrors: 0 });
  });
});
