import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../../lib/core/runtime.js';
import { tryToolContext } from '../../../lib/core/tool-context.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/memory/journal-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import { collect } from '../../../lib/testing/runner-contract/world.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { type Payment, payAgents } from '../../helpers/pay-agents.js';

/**
 * A journaled model step whose stream fails after a tool call (a provider's mid-stream error) is
 * not recorded, so a re-drive asks the model again and gets a new call id: the failed step's call
 * must never have run, or the re-driven one runs the tool a second time. The SDKs run no call of
 * a failed step today, and the journal releases none (v3-journal.ts), should one start to.
 */
const server = useScriptedModelServer({ freshCallIds: true });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ak-failed-step-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const agents = payAgents(() => server.url);

const pay = { name: 'pay', arguments: { to: 'bob', amount: 10 } };

describe.each(agents)(
  '%s runner: a streamed step that fails after its tool call',
  (name, agentOf) => {
    it('runs none of its calls; the re-driven run pays once', async () => {
      // Prepare
      const effects = join(dir, `${name.replace(/\W+/g, '-')}.log`);
      const execute = async ({ to, amount }: Payment) => {
        await appendFile(effects, `${tryToolContext()?.idempotencyKey}\n`);
        return `sent ${amount} to ${to}`;
      };
      const runtime = new Runtime({
        sessions: new InMemorySessionStore(),
        agents: [agentOf(execute)],
        journal: new InMemoryRunJournalStore(),
      });
      const lines = async () =>
        (await readFile(effects, 'utf8').catch(() => '')).split('\n').filter(Boolean);
      server.push(
        { toolCalls: [pay], failAfterOutput: { message: 'upstream reset' } },
        { toolCalls: [pay] },
        { text: 'Paid.' },
      );
      const options = { runId: 'run-failed-step' };

      // Act
      const first = await collect(runtime.stream('agent', 's-1', 'Pay Bob 10', options));
      const paidAfterFailure = await lines();
      const again = await collect(runtime.stream('agent', 's-1', 'Pay Bob 10', options));

      // Assess
      expect(first.at(-1)).toMatchObject({ type: 'run-error' });
      expect(paidAfterFailure).toEqual([]);
      expect(again.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Paid.' } });
      expect(await lines()).toHaveLength(1);
    });
  },
);
