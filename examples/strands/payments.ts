/**
 * A Strands agent (`@strands-agents/sdk`) on the Runtime: a weather tool and a payment tool that
 * needs approval, on Bedrock (Strands' default provider). `npx tsx examples/strands/payments.ts`
 * — offline (the scripted model server's Bedrock Converse stand-in) unless BEDROCK_MODEL_ID is
 * set: then Amazon Bedrock in AWS_REGION with the default AWS credentials, or a
 * Converse-compatible server at BEDROCK_ENDPOINT. It pauses on the payment, approves it, and
 * prints the stream.
 */
import { pathToFileURL } from 'node:url';
import { BedrockModel } from '@strands-agents/sdk';
import * as z from 'zod';
import { Runtime } from '../../lib/core/index.js';
import { STRANDS_INTEGRATION, strandsAgent } from '../../lib/frameworks/strands/index.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../lib/stores/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../lib/testing/index.js';
import { defineTool, Executor } from '../../lib/tools/index.js';
import { payBobAndApprove } from '../shared/pay-and-approve.js';
import { offlineBedrock } from './bedrock.js';

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

export function createPaymentsRuntime(model: BedrockModel) {
  const executor = new Executor();
  const agent = strandsAgent({
    name: 'payments',
    description: 'Checks the weather and sends payments (with approval).',
    model,
    systemPrompt: 'You help with weather and payments.',
    tools: [weather, pay].map((spec) => STRANDS_INTEGRATION.exportTool(spec, { executor })),
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

/** The model the environment asks for: Bedrock itself, a Converse endpoint, or offline. */
function modelFromEnv(offline: ScriptedModelServer | undefined): BedrockModel {
  const { BEDROCK_MODEL_ID: modelId, BEDROCK_ENDPOINT: endpoint } = process.env;
  if (offline) return offlineBedrock(offline.url);
  if (endpoint) return offlineBedrock(endpoint, modelId);
  return new BedrockModel({ modelId: modelId as string });
}

export async function main(log: (line: string) => void = console.log): Promise<void> {
  let offline: ScriptedModelServer | undefined;
  if (!process.env.BEDROCK_MODEL_ID)
    offline = await startScriptedModelServer({ script: OFFLINE_SCRIPT, freshCallIds: true });
  try {
    const runtime = createPaymentsRuntime(modelFromEnv(offline));
    await payBobAndApprove(runtime, log);
  } finally {
    await offline?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
