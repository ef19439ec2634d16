import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../lib/core/events.js';
import { Runtime } from '../../../lib/core/runtime.js';
import { tryToolContext } from '../../../lib/core/tool-context.js';
import { langgraphAgent, withToolEffects } from '../../../lib/frameworks/langgraph/index.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/memory/journal-store.js';
import { InMemoryPausedRunStore } from '../../../lib/stores/memory/paused-run-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import {
  CrashBeforeSave,
  collect,
  LosingJournalStore,
} from '../../../lib/testing/runner-contract/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

const server = useScriptedModelServer({ freshCallIds: true });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ak-lg-durable-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A payment tool declared to pause for a person when its outcome is unknown. */
function world(file: string) {
  const pay = withToolEffects(
    tool(
      async ({ to, amount }: { to: string; amount: number }) => {
        await appendFile(file, `${tryToolContext()?.idempotencyKey}\n`);
        return `sent ${amount} to ${to}`;
      },
      {
        name: 'pay',
        description: 'Send money',
        schema: {
          type: 'object',
          properties: { to: { type: 'string' }, amount: { type: 'number' } },
          required: ['to', 'amount'],
        } as any,
      },
    ),
    { onUnknownOutcome: 'pause' },
  );
  const llm = new ChatOpenAI({
    model: 'scripted-model',
    apiKey: 'test-key',
    configuration: { baseURL: server.url },
    maxRetries: 0,
  });
  const journal = new LosingJournalStore(new InMemoryRunJournalStore());
  const crash = new CrashBeforeSave();
  const agent = langgraphAgent({ name: 'agent', graph: createReactAgent({ llm, tools: [pay] }) });
  const runtime = new Runtime({
    sessions: new InMemorySessionStore(),
    pausedRuns: new InMemoryPausedRunStore(),
    agents: [agent],
    journal,
    postHooks: [crash],
  });
  return { runtime, journal, crash };
}

async function lines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

describe('langgraph runner: a call whose outcome is unknown, declared to pause', () => {
  for (const status of ['approved', 'denied'] as const) {
    it(`pauses for a person; ${status}, the call ${status === 'approved' ? 'runs again with the same key' : 'is not run'}`, async () => {
      // Prepare
      const file = join(dir, `${status}.log`);
      const { runtime, journal, crash } = world(file);
      server.push(
        { toolCalls: [{ name: 'pay', arguments: { to: 'bob', amount: 10 } }] },
        { text: 'Failed.' },
        { text: 'Done.' },
      );
      journal.loseNextOutcome();
      crash.arm();
      const options = { runId: `run-${status}` };
      await collect(runtime.stream('agent', `s-${status}`, 'Pay Bob 10', options));
      crash.disarm();

      // Act
      const paused = await collect(runtime.stream('agent', `s-${status}`, 'Pay Bob 10', options));
      const last = paused.at(-1) as Extract<StreamEvent, { type: 'run-paused' }>;
      const id = last.interruptions?.[0]?.id ?? '';
      const done = await collect(
        runtime.resumeStream(`s-${status}`, `run-${status}`, [{ id, status }]),
      );

      // Assess
      expect(last).toMatchObject({
        type: 'run-paused',
        interruptions: [
          { kind: 'tool-approval', toolName: 'pay', id: expect.stringMatching(/^call_/) },
        ],
      });
      expect(done.at(-1)).toMatchObject({ type: 'run-finished' });
      const effects = await lines(file);
      expect(effects).toEqual(
        status === 'approved' ? [`run-approved:${id}`, `run-approved:${id}`] : [`run-denied:${id}`],
      );
      const final = JSON.stringify(server.requests.at(-1)?.body);
      expect(final).toContain(status === 'approved' ? 'sent 10 to bob' : 'approval-denied');
    });
  }
});
