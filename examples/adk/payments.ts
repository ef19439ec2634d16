/**
 * A Google ADK agent on the Runtime: an `LlmAgent` with a weather tool and a payment tool that
 * needs confirmation (ADK's own gate). `npx tsx examples/adk/payments.ts` — offline (the
 * scripted model server speaks Gemini's API) unless GEMINI_API_KEY (or GOOGLE_API_KEY) or
 * GEMINI_BASE_URL is set; GEMINI_MODEL picks the model. It pauses on the payment, approves it,
 * and prints the stream.
 */
import { pathToFileURL } from 'node:url';
import { LlmAgent, LogLevel, setLogLevel } from '@google/adk';
import * as z from 'zod';
import { Runtime } from '../../lib/core/index.js';
import { ADK_INTEGRATION, adkAgent, geminiModel } from '../../lib/frameworks/adk/index.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../lib/stores/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../lib/testing/index.js';
import { defineTool, Executor } from '../../lib/tools/index.js';
import { payBobAndApprove } from '../shared/pay-and-approve.js';

// ADK logs every model request at INFO.
setLogLevel(LogLevel.WARN);

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
  baseUrl?: string;
  apiKey?: string;
  model?: string;
}) {
  const executor = new Executor();
  const agent = new LlmAgent({
    name: 'payments',
    description: 'Checks the weather and sends payments (with approval).',
    model: geminiModel({
      model: options.model ?? 'gemini-2.5-flash',
      apiKey: options.apiKey,
      baseUrl: options.baseUrl,
    }),
    instruction: 'You help with weather and payments.',
    tools: [weather, pay].map((spec) => ADK_INTEGRATION.exportTool(spec, { executor })),
  });
  return new Runtime({
    sessions: new InMemorySessionStore(),
    pausedRuns: new InMemoryPausedRunStore(),
    agents: [adkAgent(agent)],
  });
}

/** The offline model's answers for the walk-through below (call ids are random, as a real model's). */
export const OFFLINE_SCRIPT = [
  { toolCalls: [{ id: 'call_pay', name: 'send_payment', arguments: { to: 'Bob', amount: 10 } }] },
  { text: 'Done: I sent Bob 10.' },
];

export async function main(log: (line: string) => void = console.log): Promise<void> {
  const env = process.env;
  const apiKey = env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY;
  const baseUrl = env.GEMINI_BASE_URL;
  let offline: ScriptedModelServer | undefined;
  if (!apiKey && !baseUrl)
    offline = await startScriptedModelServer({ script: OFFLINE_SCRIPT, freshCallIds: true });
  try {
    const runtime = createPaymentsRuntime(
      offline
        ? { baseUrl: offline.url.replace(/\/v1$/, ''), apiKey: 'offline' }
        : // A local server may need no key; ADK's Gemini class insists on one.
          { baseUrl, apiKey: apiKey ?? 'no-key', model: env.GEMINI_MODEL },
    );
    await payBobAndApprove(runtime, log);
  } finally {
    await offline?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
