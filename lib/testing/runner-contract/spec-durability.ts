import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { StreamEvent } from '../../core/events.js';
import type { ToolEffects } from '../../core/journal.js';
import { Runtime } from '../../core/runtime.js';
import { InMemoryRunJournalStore } from '../../stores/memory/journal-store.js';
import { InMemoryPausedRunStore } from '../../stores/memory/paused-run-store.js';
import { InMemorySessionStore } from '../../stores/memory/session-store.js';
import { Executor } from '../../tools/executor.js';
import { defineTool } from '../../tools/spec.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../scripted-model-server.js';
import type { RunnerContractHarness } from './harness.js';
import { CrashBeforeSave, LosingJournalStore } from './journal.js';
import { collect } from './world.js';

interface SpecWorld {
  server: ScriptedModelServer;
  dir: string;
  /** One line per real execution of the tool: `<idempotencyKey>\t<to>\t<amount>`. */
  effects: string;
  crash: CrashBeforeSave;
  journal: LosingJournalStore;
  runtime(effects: ToolEffects): Promise<Runtime>;
}

/** `pay` as a ToolSpec, exported through the framework's integration (the executor runs it). */
function paySpec(file: string, effects: ToolEffects) {
  return defineTool({
    name: 'pay',
    description: 'Send money to someone',
    input: z.object({ to: z.string(), amount: z.number() }),
    effects,
    handler: async ({ to, amount }, ctx) => {
      await appendFile(file, `${ctx.idempotencyKey}\t${to}\t${amount}\n`);
      return `sent ${amount} to ${to}`;
    },
  });
}

async function keysOfEffects(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t')[0] ?? '');
}

function callIdsOf(body: unknown): string[] {
  return [...new Set(JSON.stringify(body ?? null).match(/call_[A-Za-z0-9]{24}/g) ?? [])];
}

/**
 * The durability checks with a ToolSpec tool (the executor guards it, not the runner): a call of
 * a tool declared `onUnknownOutcome: 'pause'` whose outcome an earlier attempt never wrote pauses
 * the re-run through the framework's own pause path, as `<callId>:unknown-outcome`; approved, it
 * runs once more under the same idempotency key, denied, never. The model gives fresh call ids,
 * so the re-run only finds the call if the recorded model step is replayed.
 */
export function registerSpecDurabilityChecks(harness: RunnerContractHarness): void {
  if (!harness.supportsPause) return;
  const world = {} as SpecWorld;

  describe(`${harness.name} runner contract: durable ToolSpec tools`, () => {
    beforeAll(async () => {
      world.server = await startScriptedModelServer({ freshCallIds: true });
      world.dir = await mkdtemp(join(tmpdir(), 'ak-spec-durable-'));
    });
    afterAll(async () => {
      await world.server.close();
      await rm(world.dir, { recursive: true, force: true });
    });
    beforeEach(({ task }) => {
      world.server.reset();
      world.effects = join(world.dir, `${task.id}.log`);
      world.crash = new CrashBeforeSave();
      world.journal = new LosingJournalStore(new InMemoryRunJournalStore());
      world.runtime = async (effects) => {
        const agent = await harness.agent({
          modelUrl: world.server.url,
          tools: [paySpec(world.effects, effects)],
          executor: new Executor(),
        });
        return new Runtime({
          sessions: new InMemorySessionStore(),
          pausedRuns: new InMemoryPausedRunStore(),
          agents: [agent],
          journal: world.journal,
          postHooks: [world.crash],
        });
      };
    });

    for (const status of ['approved', 'denied'] as const) {
      const outcome = status === 'approved' ? 'runs once more under the same key' : 'never runs';
      it(`pauses a ToolSpec call declared onUnknownOutcome 'pause' whose outcome was lost; ${status}, it ${outcome}`, async () => {
        // Prepare: the first attempt ran the tool and lost its outcome (a crash during the call).
        const { server, crash, journal } = world;
        const runtime = await world.runtime({ onUnknownOutcome: 'pause' });
        const payCall = { toolCalls: [{ name: 'pay', arguments: { to: 'bob', amount: 10 } }] };
        server.push(payCall, { text: 'Failed.' }, { text: 'Done.' });
        journal.loseNextOutcome();
        crash.arm();
        const session = `s-spec-${status}`;
        const options = { runId: `run-spec-${status}` };
        const first = await collect(runtime.stream('agent', session, 'Pay Bob 10', options));
        crash.disarm();
        const asked = server.requests.length;
        const callId = callIdsOf(server.requests[1]?.body)[0];

        // Act
        const paused = await collect(runtime.stream('agent', session, 'Pay Bob 10', options));
        const last = paused.at(-1) as Extract<StreamEvent, { type: 'run-paused' }>;
        const id = last.interruptions?.[0]?.id ?? '';
        const done = await collect(runtime.resumeStream(session, options.runId, [{ id, status }]));

        // Assess: paused (not finished with "waits for approval"), under the rerun decision's id.
        expect(first.at(-1)).toMatchObject({ type: 'run-error' });
        expect(last).toMatchObject({
          type: 'run-paused',
          interruptions: [
            { kind: 'tool-approval', toolName: 'pay', id: `${callId}:unknown-outcome` },
          ],
        });
        expect(last.interruptions).toHaveLength(1);
        expect(done.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Done.' } });
        const key = `${options.runId}:${callId}`;
        expect(await keysOfEffects(world.effects)).toEqual(
          status === 'approved' ? [key, key] : [key],
        );
        // The recorded step is replayed: only the step after the decision asks the model.
        expect(server.requests).toHaveLength(asked + 1);
        const final = JSON.stringify(server.requests.at(-1)?.body);
        expect(final.includes('sent 10 to bob')).toBe(status === 'approved');
        expect(final).not.toContain('waits for approval');
        expect(callIdsOf(server.requests.at(-1)?.body)).toContain(callId);
      });
    }

    it('resumes an approved rerun exactly once: the same decision sent again is refused and runs nothing', async () => {
      // Prepare
      const { server, crash, journal } = world;
      const runtime = await world.runtime({ onUnknownOutcome: 'pause' });
      const payCall = { toolCalls: [{ name: 'pay', arguments: { to: 'bob', amount: 10 } }] };
      server.push(payCall, { text: 'Failed.' }, { text: 'Done.' }, { text: 'Again?' });
      journal.loseNextOutcome();
      crash.arm();
      const options = { runId: 'run-spec-twice' };
      await collect(runtime.stream('agent', 's-spec-twice', 'Pay Bob 10', options));
      crash.disarm();
      const paused = await collect(runtime.stream('agent', 's-spec-twice', 'Pay Bob 10', options));
      const last = paused.at(-1) as Extract<StreamEvent, { type: 'run-paused' }>;
      const decisions = [{ id: last.interruptions?.[0]?.id ?? '', status: 'approved' as const }];

      // Act
      const done = await collect(runtime.resumeStream('s-spec-twice', options.runId, decisions));
      const again = await collect(runtime.resumeStream('s-spec-twice', options.runId, decisions));

      // Assess
      expect(done.at(-1)).toMatchObject({ type: 'run-finished' });
      expect(again.at(-1)).toMatchObject({ type: 'run-error' });
      expect(await keysOfEffects(world.effects)).toHaveLength(2);
    });
  });
}
