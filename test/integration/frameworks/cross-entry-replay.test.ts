import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../../lib/core/runtime.js';
import { tryToolContext } from '../../../lib/core/tool-context.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/memory/journal-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import type { RecordedRequest } from '../../../lib/testing/index.js';
import { CrashBeforeSave } from '../../../lib/testing/runner-contract/index.js';
import { collect } from '../../../lib/testing/runner-contract/world.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { type Execute, type PayAgent, type Payment, payAgents } from '../../helpers/pay-agents.js';

// Fresh call ids in every response: a re-driven run finds its call only by replaying the step.
const server = useScriptedModelServer({ freshCallIds: true });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ak-cross-entry-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// The ai-sdk runner streams through `streamText` (doStream) and drains through `generateText`
// (doGenerate); Mastra drains its stream, so both of its entries are doStream.
const agents = payAgents(() => server.url);

function callIds(request: RecordedRequest | undefined): string[] {
  return [...new Set(JSON.stringify(request?.body ?? null).match(/call_[A-Za-z0-9]{24}/g) ?? [])];
}

function world(name: string, agentOf: (execute: Execute) => PayAgent) {
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
