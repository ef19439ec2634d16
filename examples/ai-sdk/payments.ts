/**
 * A Vercel AI SDK agent on the Runtime: a tool loop with a weather tool and a payment tool that
 * needs approval. `npx tsx examples/ai-sdk/payments.ts` — offline (scripted model) unless
 * OPENAI_API_KEY or OPENAI_BASE_URL (an OpenAI-compatible server; no key needed) is set. It pauses on the payment, approves it, and prints the stream.
 */
import { pathToFileURL } from 'node:url';
import { createOpenAI } from '@ai-sdk/openai';
import * as z from 'zod';
import { Runtime } from '../../lib/core/index.js';
import { AI_SDK_INTEGRATION, aiSdkAgent, aiSdkToolSet } from '../../lib/frameworks/ai-sdk/index.js';
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

const pay = defineTool({
  name: 'send_payment',
  description: 'Send money to someone.',
  input: z.object({ to: z.string(), amount: z.number().positive() }),
  confirm: true,
  handler: ({ to, amount }) => `sent ${amount} to ${to}`,
});

export function createPaymentsRuntime(options: {
  baseURL?: string;
  apiKey?: string;
  model?: string;
}) {
  const openai = createOpenAI({ baseURL: options.baseURL, apiKey: options.apiKey });
  const executor = new Executor();
  const agent = aiSdkAgent({
    name: 'payments',
    description: 'Checks the weather and sends payments (with approval).',
    model: openai(options.model ?? 'gpt-4.1-mini'),
    instructions: 'You help with weather and payments.',
    tools: aiSdkToolSet([weather, pay].map((s) => AI_SDK_INTEGRATION.exportTool(s, { executor }))),
  });
  return new Runtime({
    sessions: new InMemorySessionStore(),
    pausedRuns: new InMemoryPausedRunStore(),
    agents: [agent],
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
