import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAI as createOpenAIV3 } from '@ai-sdk/openai-v3';
import { Agent as MastraAgent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { type JSONSchema7, jsonSchema, type LanguageModel, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../../lib/core/runtime.js';
import { tryToolContext } from '../../../lib/core/tool-context.js';
import { aiSdkAgent } from '../../../lib/frameworks/ai-sdk/index.js';
import { mastraAgent } from '../../../lib/frameworks/mastra/index.js';
import { jsonOnlySchema } from '../../../lib/frameworks/mastra/tools.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/memory/journal-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import type { RecordedRequest } from '../../../lib/testing/index.js';
import { CrashBeforeSave } from '../../../lib/testing/runner-contract/index.js';
import { collect } from '../../../lib/testing/runner-contract/world.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

// Fresh call ids in every response: a re-driven run finds its call only by replaying the step.
const server = useScriptedModelServer({ freshCallIds: true });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ak-cross-entry-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Payment = { to: string; amount: number };
type Execute = (args: Payment) => Promise<string>;
type AnyAgent = ReturnType<typeof aiSdkAgent> | ReturnType<typeof mastraAgent>;
const parameters: JSONSchema7 = {
  type: 'object',
  properties: { to: { type: 'string' }, amount: { type: 'number' } },
  required: ['to', 'amount'],
};

const openai = () => createOpenAI({ baseURL: server.url, apiKey: 'k' });

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

function mastra(execute: Execute) {
  const pay = createTool({
    id: 'pay',
    description: 'Send money',
    inputSchema: jsonOnlySchema(parameters as Record<string, unknown>),
    execute: (args: unknown) => execute(args as Payment),
  } as Parameters<typeof createTool>[0]);
  // A v3 provider's model: the one Mastra 1.x speaks (its journal layer wraps v3 models).
  const model = createOpenAIV3({ baseURL: server.url, apiKey: 'k' }).chat('scripted-model');
  return mastraAgent(
    new MastraAgent({
      id: 'agent',
      name: 'agent',
      instructions: '',
      model: model as never,
      tools: { pay },
    }),
  );
}

// The ai-sdk runner streams through `streamText` (doStream) and drains through `generateText`
// (doGenerate); Mastra drains its stream, so both of its entries are doStream.
const agents: [string, (execute: Execute) => AnyAgent][] = [
  ['ai-sdk', aiSdk(() => openai()('scripted-model'))],
  ['ai-sdk (chat completions)', aiSdk(() => openai().chat('scripted-model'))],
  ['mastra', mastra],
];

function callIds(request: RecordedRequest | undefined): string[] {
  return [...new Set(JSON.stringify(request?.body ?? null).match(/call_[A-Za-z0-9]{24}/g) ?? [])];
}

function world(name: string, agentOf: (execute: Execute) => AnyAgent) {
  const effects = join(dir, `${name.replace(/\W+/g, '-')}-${Math.random()}.log`);
  const execute = async ({ to, amount }: Payment) => {
    await appendFile(effects, `${tryToolContext()?.idempotencyKey}\n`);
    return `sent ${amount} to ${to}`;
  };
  const crash = new CrashBeforeSave();
  const runtime = new Runtime({
    sessions: new InMemorySessionStore(),
    agents: [agentOf(execute)],
    journal: new InMemoryRunJournalStore(),
    postHooks: [crash],
  });
  const lines = async () => (await readFile(effects, 'utf8')).split('\n').filter(Boolean);
  return { crash, runtime, lines };
}

const payCall = { toolCalls: [{ name: 'pay', arguments: { to: 'bob', amount: 10 } }] };

describe.each(agents)(
  '%s runner: a step recorded through one entry replays through the other',
  (name, agentOf) => {
    it('streamed, crashed, re-driven through run(): the tool step is not asked again, the tool runs once', async () => {
      // Prepare
      const { crash, runtime, lines } = world(name, agentOf);
      server.push(payCall, { text: 'Paid.' }, { text: 'Paid Bob.' });
      crash.arm();
      const options = { runId: 'run-stream-then-run' };

      // Act
      const first = await collect(runtime.stream('agent', 's-1', 'Pay Bob 10', options));
      const asked = server.requests.length;
      const again = await runtime.run('agent', 's-1', 'Pay Bob 10', options);

      // Assess
      expect(first.at(-1)).toMatchObject({ type: 'run-error' });
      expect(asked).toBe(2);
      expect(again).toMatchObject({ status: 'completed', text: 'Paid Bob.' });
      const [callId] = callIds(server.requests[1]);
      expect(await lines()).toEqual([`run-stream-then-run:${callId}`]);
      // Only the step after the tool (never recorded: no tool call) was asked, with the same call.
      expect(server.requests).toHaveLength(asked + 1);
      expect(callIds(server.requests[2])).toEqual([callId]);
    });

    it('run(), crashed, re-driven through stream(): the tool step is not asked again, the tool runs once', async () => {
      // Prepare
      const { crash, runtime, lines } = world(name, agentOf);
      server.push(payCall, { text: 'Paid.' }, { text: 'Paid Bob.' });
      crash.arm();
      const options = { runId: 'run-run-then-stream' };

      // Act
      await expect(runtime.run('agent', 's-2', 'Pay Bob 10', options)).rejects.toThrow();
      const asked = server.requests.length;
      const again = await collect(runtime.stream('agent', 's-2', 'Pay Bob 10', options));

      // Assess
      expect(asked).toBe(2);
      expect(again.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Paid Bob.' } });
      const [callId] = callIds(server.requests[1]);
      expect(await lines()).toEqual([`run-run-then-stream:${callId}`]);
      expect(server.requests).toHaveLength(asked + 1);
      expect(callIds(server.requests[2])).toEqual([callId]);
    });
  },
);
