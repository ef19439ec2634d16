import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAI as createOpenAIV3 } from '@ai-sdk/openai-v3';
import { Agent as MastraAgent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { type JSONSchema7, jsonSchema, type LanguageModel, tool } from 'ai';
import { aiSdkAgent } from '../../lib/frameworks/ai-sdk/index.js';
import { mastraAgent } from '../../lib/frameworks/mastra/index.js';
import { jsonOnlySchema } from '../../lib/frameworks/mastra/tools.js';

/**
 * One agent named `agent` with one side-effecting tool `pay`, for each runner whose models speak
 * the AI SDK's v3 spec (the ai-sdk runner on Responses and on Chat Completions, Mastra): what the
 * journal tests re-drive and count effects of.
 */
export type Payment = { to: string; amount: number };
export type Execute = (args: Payment) => Promise<string>;
export type PayAgent = ReturnType<typeof aiSdkAgent> | ReturnType<typeof mastraAgent>;

const parameters: JSONSchema7 = {
  type: 'object',
  properties: { to: { type: 'string' }, amount: { type: 'number' } },
  required: ['to', 'amount'],
};

function aiSdk(model: () => LanguageModel) {
  return (execute: Execute) =>
    aiSdkAgent({
      name: 'agent',
      model: model(),
      tools: {
        pay: tool({
          description: 'Send money',
          inputSchema: jsonSchema<Payment>(parameters),
          execute,
        }),
      },
    });
}

function mastra(url: () => string) {
  return (execute: Execute) => {
    const pay = createTool({
      id: 'pay',
      description: 'Send money',
      inputSchema: jsonOnlySchema(parameters as Record<string, unknown>),
      execute: (args: unknown) => execute(args as Payment),
    } as Parameters<typeof createTool>[0]);
    // A v3 provider's model: the one Mastra 1.x speaks (its journal layer wraps v3 models).
    const model = createOpenAIV3({ baseURL: url(), apiKey: 'k' }).chat('scripted-model');
    return mastraAgent(
      new MastraAgent({
        id: 'agent',
        name: 'agent',
        instructions: '',
        model: model as never,
        tools: { pay },
      }),
    );
  };
}

/** [label, agent of an `execute`] for each runner, against the model server at `url()`. */
export function payAgents(url: () => string): [string, (execute: Execute) => PayAgent][] {
  const openai = () => createOpenAI({ baseURL: url(), apiKey: 'k' });
  return [
    ['ai-sdk', aiSdk(() => openai()('scripted-model'))],
    ['ai-sdk (chat completions)', aiSdk(() => openai().chat('scripted-model'))],
    ['mastra', mastra(url)],
  ];
}
