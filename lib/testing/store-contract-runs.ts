import { describe, expect, it } from 'vitest';
import type { RunRecord, RunRecordStore } from '../app/ports/run-records.js';
import type { LedgerEntry, ToolLedger } from '../core/ledger.js';
import type { PausedRun } from '../core/paused-run.js';
import { type PausedRunStore, RunAlreadyResumed } from '../core/stores.js';
import {
  CONTRACT_TTL_SECONDS,
  incompressibleText,
  type StoreFactory,
  TestClock,
  uniqueId,
} from './store-contract-context.js';

async function setup<T>(factory: StoreFactory<T>) {
  const clock = new TestClock();
  const store = await factory({ now: clock.now, ttlSeconds: CONTRACT_TTL_SECONDS });
  return { clock, store, sessionId: uniqueId('s') };
}

function pausedRun(sessionId: string, now: number, patch: Partial<PausedRun> = {}): PausedRun {
  return {
    schemaVersion: 1,
    runId: uniqueId('run'),
    sessionId,
    agent: 'assistant',
    runner: 'openai',
    createdAt: now,
    expiresAt: now + 3_600_000,
    status: 'pending',
    interruptions: [
      { id: 'call-1', kind: 'tool-approval', toolName: 'refund', arguments: { amount: 12.5 } },
    ],
    state: { generatedItems: [{ type: 'message', text: 'ok' }], currentTurn: 1 },
    ...patch,
  };
}

/** Contract of a `PausedRunStore`: round trips, listing, the one-winner claim and its lapse. */
export function pausedRunStoreContract(name: string, factory: StoreFactory<PausedRunStore>): void {
  describe(`PausedRunStore contract: ${name}`, () => {
    it('puts, gets, lists by session (oldest first) and deletes', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const later = pausedRun(sessionId, clock.now() + 5);
      const earlier = pausedRun(sessionId, clock.now());
      const elsewhere = pausedRun(uniqueId('s'), clock.now());

      // Act
      for (const run of [later, earlier, elsewhere]) await store.put(run);
      const got = await store.get(sessionId, earlier.runId);
      const listed = await store.list(sessionId);
      await store.delete(sessionId, earlier.runId);

      // Assess
      expect(got).toEqual(earlier);
      expect(listed).toEqual([earlier, later]);
      expect(await store.get(sessionId, earlier.runId)).toBeUndefined();
      expect(await store.list(sessionId)).toEqual([later]);
    });

    it('claims pending → resuming once; a second claim is RunAlreadyResumed', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const run = pausedRun(sessionId, clock.now());
      await store.put(run);

      // Act
      const claimed = await store.claim(sessionId, run.runId);
      const second = store.claim(sessionId, run.runId);

      // Assess
      expect(claimed.run).toEqual({ ...run, status: 'resuming' });
      expect(claimed).toMatchObject({ takeover: false, claimedUntil: clock.now() + 16 * 60_000 });
      expect(claimed.token).toEqual(expect.any(String));
      await expect(second).rejects.toBeInstanceOf(RunAlreadyResumed);
      await expect(second).rejects.toMatchObject({ code: 'run-already-resumed' });
      expect(await store.get(sessionId, run.runId)).toMatchObject({ status: 'resuming' });
    });

    it('of many concurrent claims, exactly one proceeds', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const run = pausedRun(sessionId, clock.now());
      await store.put(run);

      // Act
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => store.claim(sessionId, run.runId)),
      );

      // Assess
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(RunAlreadyResumed);
      }
    });

    it('releases a failed resume back to pending so it can be claimed again', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const run = pausedRun(sessionId, clock.now());
      await store.put(run);
      const first = await store.claim(sessionId, run.runId);

      // Act
      await store.release(sessionId, run.runId, first.token);
      const released = await store.get(sessionId, run.runId);
      const again = await store.claim(sessionId, run.runId);

      // Assess
      expect(released).toEqual(run);
      expect(again.run.status).toBe('resuming');
      expect(again.token).not.toBe(first.token);
    });

    it('refuses a claim while another holds it, and takes over one that lapsed', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const run = pausedRun(sessionId, clock.now());
      await store.put(run);
      const crashed = await store.claim(sessionId, run.runId, { claimMs: 5_000 });

      // Act
      clock.advance(4_999);
      const held = await store.claim(sessionId, run.runId, { claimMs: 5_000 }).catch((e) => e);
      const whileHeld = await store.get(sessionId, run.runId);
      clock.advance(1);
      const afterLapse = await store.get(sessionId, run.runId);
      const listed = await store.list(sessionId);
      const takeover = await store.claim(sessionId, run.runId, { claimMs: 5_000 });

      // Assess
      expect(crashed.claimedUntil).toBe(clock.now());
      expect(held).toBeInstanceOf(RunAlreadyResumed);
      expect(whileHeld?.status).toBe('resuming');
      expect(afterLapse).toEqual(run);
      expect(listed).toEqual([run]);
      expect(takeover).toMatchObject({ takeover: true, claimedUntil: clock.now() + 5_000 });
      expect(takeover.run).toEqual({ ...run, status: 'resuming' });
      expect(takeover.token).not.toBe(crashed.token);
      expect(await store.get(sessionId, run.runId)).toMatchObject({ status: 'resuming' });
    });

    it('lets only the current holder release: a lapsed holder coming back late changes nothing', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const run = pausedRun(sessionId, clock.now());
      await store.put(run);
      const late = await store.claim(sessionId, run.runId, { claimMs: 1_000 });
      clock.advance(1_500);
      const current = await store.claim(sessionId, run.runId, { claimMs: 60_000 });

      // Act
      await store.release(sessionId, run.runId, late.token);
      const afterLateRelease = await store.get(sessionId, run.runId);
      const third = await store.claim(sessionId, run.runId).catch((e) => e);
      await store.release(sessionId, run.runId, 'not-a-token');
      const afterForeignRelease = await store.get(sessionId, run.runId);
      await store.release(sessionId, run.runId, current.token);
      const afterRelease = await store.get(sessionId, run.runId);

      // Assess
      expect(afterLateRelease?.status).toBe('resuming');
      expect(third).toBeInstanceOf(RunAlreadyResumed);
      expect(afterForeignRelease?.status).toBe('resuming');
      expect(afterRelease).toEqual(run);
    });

    it('answers a claim of a missing or expired run with paused-run-not-found', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const run = pausedRun(sessionId, clock.now(), { expiresAt: clock.now() + 60_000 });
      await store.put(run);

      // Act
      clock.advance(61_000);
      const expired = await store.get(sessionId, run.runId);
      const listed = await store.list(sessionId);
      const claims = await Promise.allSettled([
        store.claim(sessionId, run.runId),
        store.claim(sessionId, 'no-such-run'),
      ]);

      // Assess
      expect(expired).toBeUndefined();
      expect(listed).toEqual([]);
      for (const r of claims) {
        expect(r).toMatchObject({ status: 'rejected', reason: { code: 'paused-run-not-found' } });
      }
    });

    it('keeps a large framework state (1 MB) intact', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const run = pausedRun(sessionId, clock.now(), { state: { blob: incompressibleText(1e6) } });

      // Act
      await store.put(run);
      const claimed = await store.claim(sessionId, run.runId);

      // Assess
      expect(claimed.run).toEqual({ ...run, status: 'resuming' });
    });

    it('refuses records that fail the schema or carry prototype keys', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const poisoned = pausedRun(sessionId, clock.now(), {
        state: JSON.parse('{"a": {"constructor": {"prototype": {}}}}'),
      });
      const future = { ...pausedRun(sessionId, clock.now()), schemaVersion: 2 } as never;

      // Act
      const results = await Promise.allSettled([store.put(poisoned), store.put(future)]);

      // Assess
      for (const r of results) {
        expect(r).toMatchObject({ status: 'rejected', reason: { code: 'invalid-record' } });
      }
      expect(await store.list(sessionId)).toEqual([]);
    });
  });
}

function runRecord(sessionId: string, now: number, patch: Partial<RunRecord> = {}): RunRecord {
  return {
    schemaVersion: 1,
    runId: uniqueId('run'),
    sessionId,
    agent: 'assistant',
    status: 'queued',
    createdAt: now,
    updatedAt: now,
    ...patch,
  };
}

/** Contract of a `RunRecordStore`: status, reply or error of asynchronous runs. */
export function runRecordStoreContract(name: string, factory: StoreFactory<RunRecordStore>): void {
  describe(`RunRecordStore contract: ${name}`, () => {
    it('stores a record and replaces it as the run moves on', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const queued = runRecord(sessionId, clock.now());
      const done: RunRecord = {
        ...queued,
        status: 'completed',
        reply: { status: 'completed', text: 'hi', runId: queued.runId },
        updatedAt: clock.now() + 10,
      };

      // Act
      await store.put(queued);
      const first = await store.get(sessionId, queued.runId);
      await store.put(done);

      // Assess
      expect(first).toEqual(queued);
      expect(await store.get(sessionId, queued.runId)).toEqual(done);
      expect(await store.get(sessionId, 'other')).toBeUndefined();
    });

    it('keeps errors and forgets records after the TTL', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const failed = runRecord(sessionId, clock.now(), {
        status: 'failed',
        error: { code: 'model-error', message: 'boom' },
      });
      await store.put(failed);

      // Act
      const before = await store.get(sessionId, failed.runId);
      clock.advance((CONTRACT_TTL_SECONDS + 1) * 1000);
      const after = await store.get(sessionId, failed.runId);

      // Assess
      expect(before).toEqual(failed);
      expect(after).toBeUndefined();
    });

    it('moves a run through its states; a finished run is never overwritten', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const queued = runRecord(sessionId, clock.now());
      const at = (status: RunRecord['status'], patch: Partial<RunRecord> = {}) => ({
        ...queued,
        status,
        updatedAt: clock.now() + 1,
        ...patch,
      });

      // Act
      const moves = [];
      for (const status of ['queued', 'running', 'paused', 'running', 'completed'] as const) {
        moves.push(await store.transition(at(status, { nextSeq: moves.length })));
      }
      const late = await store.transition(at('running'));
      const failed = await store.transition(at('failed', { error: { code: 'x', message: 'y' } }));
      const requeued = await store.transition(at('queued'));

      // Assess
      expect(moves).toEqual(Array(5).fill({ applied: true }));
      const done = at('completed', { nextSeq: 4 });
      for (const refused of [late, failed, requeued]) {
        expect(refused).toEqual({ applied: false, current: done });
      }
      expect(await store.get(sessionId, queued.runId)).toEqual(done);
    });

    it('lets a timed-out or failed attempt be retried, but never moves back to queued', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const run = runRecord(sessionId, clock.now(), { status: 'running' });
      await store.put(run);

      // Act
      const timedOut = await store.transition({ ...run, status: 'timed-out' });
      const requeued = await store.transition({ ...run, status: 'queued' });
      const retried = await store.transition({ ...run, status: 'running' });
      const failed = await store.transition({ ...run, status: 'failed' });
      const again = await store.transition({ ...run, status: 'running' });
      const paused = await store.transition({ ...run, status: 'paused' });
      const skipped = await store.transition({ ...run, status: 'completed' });

      // Assess
      expect([timedOut, retried, failed, again, paused]).toEqual(Array(5).fill({ applied: true }));
      expect(requeued).toMatchObject({ applied: false, current: { status: 'timed-out' } });
      expect(skipped).toMatchObject({ applied: false, current: { status: 'paused' } });
    });

    it('of concurrent outcomes of one running run, exactly one is written', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const run = runRecord(sessionId, clock.now(), { status: 'running' });
      await store.put(run);
      const outcomes = Array.from({ length: 10 }, (_, i) => ({
        ...run,
        status: i % 2 === 0 ? ('completed' as const) : ('failed' as const),
        updatedAt: clock.now() + i,
      }));

      // Act
      const results = await Promise.all(outcomes.map((o) => store.transition(o)));

      // Assess
      const winners = outcomes.filter((_, i) => results[i]?.applied);
      expect(winners).toHaveLength(1);
      expect(await store.get(sessionId, run.runId)).toEqual(winners[0]);
    });

    it('treats a missing or expired record as absent: any first status is written', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const old = runRecord(sessionId, clock.now(), { status: 'completed' });
      await store.put(old);
      clock.advance((CONTRACT_TTL_SECONDS + 1) * 1000);
      const fresh = runRecord(sessionId, clock.now(), { status: 'paused' });

      // Act
      const reused = await store.transition({ ...old, status: 'running' });
      const created = await store.transition(fresh);

      // Assess
      expect([reused, created]).toEqual([{ applied: true }, { applied: true }]);
      expect(await store.get(sessionId, old.runId)).toEqual({ ...old, status: 'running' });
    });

    it('refuses a record that fails the schema', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const bad = { ...runRecord(sessionId, clock.now()), status: 'exploded' } as never;

      // Act
      const put = store.put(bad);

      // Assess
      await expect(put).rejects.toMatchObject({ code: 'invalid-record' });
    });
  });
}

function ledgerEntry(sessionId: string, runId: string, patch: Partial<LedgerEntry> = {}) {
  return {
    sessionId,
    runId,
    callId: uniqueId('call'),
    tool: 'lookup',
    argsHash: 'a'.repeat(64),
    outcome: 'ok',
    attempts: 1,
    durationMs: 3,
    startedAt: 1_000,
    ...patch,
  } satisfies LedgerEntry;
}

/** Contract of a `ToolLedger`: entries of a session or one run, oldest first. */
export function toolLedgerContract(name: string, factory: StoreFactory<ToolLedger>): void {
  describe(`ToolLedger contract: ${name}`, () => {
    it('lists a session’s entries oldest first, or one run’s', async () => {
      // Prepare
      const { store, sessionId } = await setup(factory);
      const a = ledgerEntry(sessionId, 'run-a', { startedAt: 3_000 });
      const b = ledgerEntry(sessionId, 'run-b', { startedAt: 1_000, outcome: 'denied' });
      const c = ledgerEntry(sessionId, 'run-a', { startedAt: 2_000, approval: 'approved' });
      const elsewhere = ledgerEntry(uniqueId('s'), 'run-a');

      // Act
      for (const entry of [a, b, c, elsewhere]) await store.record(entry);
      const all = await store.list(sessionId);
      const runA = await store.list(sessionId, 'run-a');

      // Assess
      expect(all).toEqual([b, c, a]);
      expect(runA).toEqual([c, a]);
    });
  });
}
