/**
 * A Mastra agent on the Runtime: Mastra's own `Agent` with a weather tool (a ToolSpec, exported
 * through the Mastra integration) and a native Mastra payment tool behind Mastra's approval gate
 * (`requireApproval`). `npx tsx examples/mastra/payments.ts` — offline (scripted model) unless
 * OPENAI_API_KEY or OPENAI_BASE_URL (an OpenAI-compatible server; no key needed) is set. It
 * pauses on the payment, approves it, and prints the stream.
 */
import { pathToFileURL } from 'node:url';
// Mastra 1.71 journals AI SDK v3-spec models: @ai-sdk/openai 3.x, here under an npm alias
// (`npm i @ai-sdk/openai-v3@npm:@ai-sdk/openai@3`) next to the 4.x that `ai` 7 runs on.
import { createOpenAI } from '@ai-sdk/openai-v3';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import * as z from 'zod';
import { Runtime } from '../../lib/core/index.js';
import { MASTRA_INTEGRATION, mastraAgent } from '../../lib/frameworks/mastra/index.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../lib/stores/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../lib/testing/index.js';
import { defineTool, Executor } from '../../lib/tools/index.js';
import { payBobAndApprove } from '../shared/pay-and-approve.js';

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city (made up).',
  input: z.object({ city: z.string() }),
  handler: ({ city }) => ({ city, forecast: 'sunny', celsius: 21 }),
});

/** Mastra's own tool: the run suspends at its call until a person approves or declines it. */
const sendPayment = createTool({
  id: 'send_payment',
  description: 'Send money to someone.',
  inputSchema: z.object({ to: z.string(), amount: z.number().positive() }),
  requireApproval: true,
  execute: async ({ to, amount }) => `sent ${amount} to ${to}`,
});

export function createPaymentsRuntime(options: {
  baseURL?: string;
  apiKey?: string;
  model?: string;
}) {
  const openai = createOpenAI({ baseURL: options.baseURL, apiKey: options.apiKey });
  const executor = new Executor();
  const agent = new Agent({
    id: 'payments',
    name: 'Payments',
    description: 'Checks the weather and sends payments (with approval).',
    instructions: 'You help with weather and payments.',
    model: openai(options.model ?? 'gpt-4.1-mini'),
    tools: {
      get_weather: MASTRA_INTEGRATION.exportTool(weather, { executor }),
      send_payment: sendPayment,
    },
  });
  return new Runtime({
    sessions: new InMemorySessionStore(),
    pausedRuns: new InMemoryPausedRunStore(),
    agents: [mastraAgent(agent)],
  });
}

/** The offline model's answers for the walk-through below (call ids are random, as a real model's). */
export const OFFLINE_SCRIPT = [
  { toolCalls: [{ id: 'call_pay', name: 'send_payment', arguments: { to: 'Bob', amount: 10 } }] },
  { text: 'Done: I sent Bob 10.' },
];

export async function main(log: (line: string) => void = console.log): Promise<void> {
  const { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: baseURL, OPENAI_MODEL: model } = process.env;
  let offline: ScriptedModelServer | undefined;
  if (!apiKey && !baseURL)
    offline = await startScriptedModelServer({ script: OFFLINE_SCRIPT, freshCallIds: true });
  try {
    const runtime = createPaymentsRuntime(
      offline
        ? { baseURL: offline.url, apiKey: 'offline', model: 'scripted-model' }
        : // A local server may need no key; the client insists on one.
          { baseURL, apiKey: apiKey ?? 'no-key', model },
    );
    await payBobAndApprove(runtime, log);
  } finally {
    await offline?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
