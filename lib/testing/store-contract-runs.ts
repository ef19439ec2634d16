import { describe, expect, it } from 'vitest';
import type { LedgerEntry, ToolLedger } from '../core/ledger.js';
import type { PausedRun } from '../core/paused-run.js';
import { type PausedRunStore, RunAlreadyResumed } from '../core/stores.js';
import {
  incompressibleText,
  type StoreFactory,
  setupContract,
  uniqueId,
} from './store-contract-context.js';

const setup = setupContract;

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

    it('keeps the owner and incarnation a paused run is stamped with, through a claim', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const binding = { owner: 'alice', incarnation: uniqueId('life') };
      const run = pausedRun(sessionId, clock.now(), binding);

      // Act
      await store.put(run);
      const got = await store.get(sessionId, run.runId);
      const claimed = await store.claim(sessionId, run.runId);

      // Assess
      expect(got).toEqual(run);
      expect(claimed.run).toMatchObject(binding);
      expect(await store.list(sessionId)).toEqual([expect.objectContaining(binding)]);
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
