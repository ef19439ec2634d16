import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../core/events.js';
import type { ToolEffects } from '../../core/journal.js';
import { Runtime } from '../../core/runtime.js';
import { tryToolContext } from '../../core/tool-context.js';
import { InMemoryRunJournalStore } from '../../stores/memory/journal-store.js';
import { InMemoryPausedRunStore } from '../../stores/memory/paused-run-store.js';
import { InMemorySessionStore } from '../../stores/memory/session-store.js';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../scripted-model-server.js';
import type { ContractNativeTool, RunnerContractHarness } from './harness.js';
import { CrashBeforeSave, LosingJournalStore } from './journal.js';
import { collect, expectWellFormed } from './world.js';

interface DurableWorld {
  server: ScriptedModelServer;
  dir: string;
  /** Where the tools' real side effects land: one line per execution. */
  effects: string;
  crash: CrashBeforeSave;
  journal: LosingJournalStore;
  /** The runtime, its `pay` tool declaring `effects`. */
  runtime(effects?: ToolEffects): Promise<Runtime>;
}

const PAYMENT = { to: 'bob', amount: 10 };
const payCall = (name: string) => ({ toolCalls: [{ name, arguments: PAYMENT }] });

/** The payment tools, native to the framework; each execution appends a line to `file`. */
function nativeTools(file: string, effects: ToolEffects | undefined): ContractNativeTool[] {
  const parameters = {
    type: 'object',
    properties: { to: { type: 'string' }, amount: { type: 'number' } },
    required: ['to', 'amount'],
    additionalProperties: false,
  };
  const execute = async ({ to, amount }: { to: string; amount: number }) => {
    const key = tryToolContext()?.idempotencyKey ?? 'none';
    await appendFile(file, `${key}\t${to}\t${amount}\n`);
    return `sent ${amount} to ${to}`;
  };
  return [
    {
      name: 'pay',
      description: 'Send money to someone',
      parameters,
      needsApproval: false,
      ...(effects ? { effects } : {}),
      execute,
    },
    {
      name: 'pay_confirmed',
      description: 'Send money to someone, once a person approved',
      parameters,
      needsApproval: true,
      execute,
    },
  ];
}

async function effectLines(file: string): Promise<string[][]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
}

/** The call ids a request carries (in either API's shape): fresh random `call_…` ids. */
function callIds(request: RecordedRequest | undefined): string[] {
  return [...new Set(JSON.stringify(request?.body ?? null).match(/call_[A-Za-z0-9]{24}/g) ?? [])];
}

function bodyOf(request: RecordedRequest | undefined): string {
  return JSON.stringify(request?.body ?? null);
}

/**
 * The durability checks: a run that crashed after its tool ran, a call whose outcome was never
 * written, an idempotent tool, a resume that failed after its approved tool ran. Tools are the
 * framework's native ones; the model gives fresh random call ids in every response, so a replay
 * only works if the recorded model step is served instead of asking the model again.
 */
export function registerDurabilityChecks(harness: RunnerContractHarness): void {
  const nativeAgent = harness.nativeAgent?.bind(harness);
  if (!nativeAgent) return;
  const world = {} as DurableWorld;

  describe(`${harness.name} runner contract: durable turns`, () => {
    beforeAll(async () => {
      world.server = await startScriptedModelServer({ freshCallIds: true });
      world.dir = await mkdtemp(join(tmpdir(), 'ak-durable-'));
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
        const agent = await nativeAgent({
          modelUrl: world.server.url,
          tools: nativeTools(world.effects, effects),
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

    it('writes nothing to the journal for a turn without tool calls, and two writes for one tool call', async () => {
      // Prepare
      const { server, journal } = world;
      const runtime = await world.runtime();
      server.push({ text: 'Hello.' }, payCall('pay'), { text: 'Paid.' });

      // Act
      await collect(runtime.stream('agent', 's-cost', 'Hi'));
      const quiet = structuredClone(journal.writes);
      await collect(runtime.stream('agent', 's-cost', 'Pay Bob 10'));

      // Assess
      expect(quiet).toEqual({ requests: 0, model: [], outcomes: 0 });
      // The response rides on the call's start, the outcome on the runner's last write.
      expect(journal.writes).toMatchObject({ requests: 2, outcomes: 1 });
      expect(journal.writes.model).toHaveLength(1);
    });

    it('replays a run that crashed after its tool ran: one effect, no new request for the recorded step', async () => {
      // Prepare
      const { server, crash } = world;
      const runtime = await world.runtime();
      server.push(payCall('pay'), { text: 'Paid.' }, { text: 'Paid Bob.' });
      crash.arm();
      const options = { runId: 'run-crash' };

      // Act
      const first = await collect(runtime.stream('agent', 's-crash', 'Pay Bob 10', options));
      const second = await collect(runtime.stream('agent', 's-crash', 'Pay Bob 10', options));

      // Assess
      expect(first.at(-1)).toMatchObject({ type: 'run-error' });
      expectWellFormed(second);
      expect(second.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Paid Bob.' } });
      expect(await effectLines(world.effects)).toEqual([
        [`run-crash:${callIds(server.requests[1])[0]}`, 'bob', '10'],
      ]);
      // Attempt one asked twice; the replay asked only for the step after the tool.
      expect(server.requests).toHaveLength(3);
      expect(callIds(server.requests[2])).toEqual(callIds(server.requests[1]));
      expect(bodyOf(server.requests[2])).toContain('sent 10 to bob');
    });

    it('replays a run of two tool steps: neither recorded step is asked again', async () => {
      // Prepare
      const { server, crash } = world;
      const runtime = await world.runtime();
      const second = { toolCalls: [{ name: 'pay', arguments: { to: 'eve', amount: 5 } }] };
      server.push(payCall('pay'), second, { text: 'Paid both.' }, { text: 'Paid Bob and Eve.' });
      crash.arm();
      const options = { runId: 'run-two-steps' };

      // Act
      await collect(runtime.stream('agent', 's-two-steps', 'Pay Bob 10, then Eve 5', options));
      const replay = await collect(
        runtime.stream('agent', 's-two-steps', 'Pay Bob 10, then Eve 5', options),
      );

      // Assess
      expect(replay.at(-1)).toMatchObject({
        type: 'run-finished',
        reply: { text: 'Paid Bob and Eve.' },
      });
      const lines = await effectLines(world.effects);
      expect(lines.map((line) => line.slice(1))).toEqual([
        ['bob', '10'],
        ['eve', '5'],
      ]);
      // The second step's request (history, first response, replayed tool output) hashed the
      // same on both attempts: only the final step was asked again.
      expect(server.requests).toHaveLength(4);
      expect(callIds(server.requests[3])).toEqual(callIds(server.requests[2]));
    });

    it('replays a crashed run through run() as well', async () => {
      // Prepare
      const { server, crash } = world;
      const runtime = await world.runtime();
      server.push(payCall('pay'), { text: 'Paid.' }, { text: 'Paid Bob.' });
      crash.arm();
      const options = { runId: 'run-crash-run' };

      // Act
      const first = runtime.run('agent', 's-crash-run', 'Pay Bob 10', options);
      await expect(first).rejects.toThrow();
      const second = await runtime.run('agent', 's-crash-run', 'Pay Bob 10', options);

      // Assess
      expect(second).toMatchObject({ status: 'completed', text: 'Paid Bob.' });
      expect(await effectLines(world.effects)).toHaveLength(1);
      expect(server.requests).toHaveLength(3);
      expect(callIds(server.requests[2])).toEqual(callIds(server.requests[1]));
    });

    it('does not run a call again whose outcome was never written: the model reads tool-outcome-unknown', async () => {
      // Prepare
      const { server, crash, journal } = world;
      const runtime = await world.runtime();
      server.push(payCall('pay'), { text: 'Failed.' }, { text: 'Not sure it went through.' });
      journal.loseNextOutcome();
      crash.arm();
      const options = { runId: 'run-unknown' };

      // Act
      const first = await collect(runtime.stream('agent', 's-unknown', 'Pay Bob 10', options));
      crash.disarm();
      const asked = server.requests.length;
      const second = await collect(runtime.stream('agent', 's-unknown', 'Pay Bob 10', options));

      // Assess
      expect(first.at(-1)).toMatchObject({ type: 'run-error' });
      expect(second.at(-1)).toMatchObject({ type: 'run-finished' });
      expect(await effectLines(world.effects)).toHaveLength(1);
      const replayed = server.requests.slice(asked);
      expect(replayed).toHaveLength(1);
      expect(bodyOf(replayed[0])).toContain('tool-outcome-unknown');
      expect(callIds(replayed[0])).toEqual(callIds(server.requests[1]));
    });

    it('runs an idempotent tool again with the same idempotency key when its outcome is unknown', async () => {
      // Prepare
      const { server, crash, journal } = world;
      const runtime = await world.runtime({ idempotent: true });
      server.push(payCall('pay'), { text: 'Failed.' }, { text: 'Paid Bob.' });
      journal.loseNextOutcome();
      crash.arm();
      const options = { runId: 'run-idempotent' };

      // Act
      const first = await collect(runtime.stream('agent', 's-idempotent', 'Pay Bob 10', options));
      crash.disarm();
      const asked = server.requests.length;
      const second = await collect(runtime.stream('agent', 's-idempotent', 'Pay Bob 10', options));

      // Assess
      expect(first.at(-1)).toMatchObject({ type: 'run-error' });
      expect(second.at(-1)).toMatchObject({ type: 'run-finished' });
      const lines = await effectLines(world.effects);
      expect(lines).toHaveLength(2);
      expect(lines[1]?.[0]).toBe(lines[0]?.[0]);
      expect(lines[0]?.[0]).toMatch(/^run-idempotent:call_/);
      const replayed = server.requests.slice(asked);
      expect(replayed).toHaveLength(1);
      expect(bodyOf(replayed[0])).toContain('sent 10 to bob');
      expect(bodyOf(replayed[0])).not.toContain('tool-outcome-unknown');
    });

    if (harness.supportsPause) {
      for (const status of ['approved', 'denied'] as const) {
        it(`pauses a call of an onUnknownOutcome 'pause' tool whose outcome is unknown; ${status}, it ${status === 'approved' ? 'runs again with the same key' : 'is not run'}`, async () => {
          // Prepare: the first attempt's outcome is lost after the tool ran.
          const { server, crash, journal } = world;
          const runtime = await world.runtime({ onUnknownOutcome: 'pause' });
          server.push(payCall('pay'), { text: 'Failed.' }, { text: 'Done.' });
          journal.loseNextOutcome();
          crash.arm();
          const options = { runId: `run-${status}` };
          await collect(runtime.stream('agent', `s-${status}`, 'Pay Bob 10', options));
          crash.disarm();
          const asked = server.requests.length;

          // Act
          const paused = await collect(
            runtime.stream('agent', `s-${status}`, 'Pay Bob 10', options),
          );
          const last = paused.at(-1) as Extract<StreamEvent, { type: 'run-paused' }>;
          const id = last.interruptions?.[0]?.id ?? '';
          const decisions = [{ id, status }];
          const done = await collect(
            runtime.resumeStream(`s-${status}`, `run-${status}`, decisions),
          );

          // Assess: one interruption for the call; approved, a second effect under the same key.
          expect(last).toMatchObject({
            type: 'run-paused',
            interruptions: [{ kind: 'tool-approval', toolName: 'pay' }],
          });
          expect(done.at(-1)).toMatchObject({ type: 'run-finished' });
          expect(id).toBe(`${callIds(server.requests[1])[0]}:unknown-outcome`);
          const key = `run-${status}:${callIds(server.requests.at(-1))[0]}`;
          const lines = (await effectLines(world.effects)).map((line) => line[0]);
          expect(lines).toEqual(status === 'approved' ? [key, key] : [key]);
          // The recorded step is replayed: only the step after the decision asks the model.
          expect(server.requests).toHaveLength(asked + 1);
          const final = bodyOf(server.requests.at(-1));
          expect(final.includes('sent 10 to bob')).toBe(status === 'approved');
          expect(final).not.toContain('tool-outcome-unknown');
        });
      }

      it('runs an approved tool once when the resume failed after it and is sent again', async () => {
        // Prepare
        const { server } = world;
        const runtime = await world.runtime();
        server.push(
          payCall('pay_confirmed'),
          { error: { status: 500, message: 'upstream exploded' } },
          { text: 'Paid Bob.' },
        );
        const paused = await collect(runtime.stream('agent', 's-resume', 'Pay Bob 10'));
        const last = paused.at(-1) as Extract<StreamEvent, { type: 'run-paused' }>;
        expect(last).toMatchObject({ type: 'run-paused' });
        const decisions = [{ id: last.interruptions[0]?.id ?? '', status: 'approved' as const }];

        // Act
        const failed = await collect(runtime.resumeStream('s-resume', last.runId, decisions));
        const done = await collect(runtime.resumeStream('s-resume', last.runId, decisions));

        // Assess
        expect(failed.at(-1)).toMatchObject({ type: 'run-error', code: 'model-error' });
        expect(done.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Paid Bob.' } });
        // The key the tool passes downstream is the run's and the call's, on every attempt.
        const key = `${last.runId}:${decisions[0]?.id}`;
        expect(await effectLines(world.effects)).toEqual([[key, 'bob', '10']]);
        expect(server.requests).toHaveLength(3);
        expect(bodyOf(server.requests[2])).toContain('sent 10 to bob');
      });
    }
  });
}
