import { describe, expect, it } from 'vitest';
import type { RunRecord, RunRecordStore } from '../app/ports/run-records.js';
import {
  CONTRACT_TTL_SECONDS,
  type StoreFactory,
  setupContract as setup,
  uniqueId,
} from './store-contract-context.js';

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

    it('keeps the owner and incarnation a record is stamped with, through put and transition', async () => {
      // Prepare
      const { store, sessionId, clock } = await setup(factory);
      const binding = { owner: 'alice', incarnation: uniqueId('life') };
      const queued = runRecord(sessionId, clock.now(), binding);
      const running: RunRecord = { ...queued, status: 'running', updatedAt: clock.now() + 1 };

      // Act
      await store.put(queued);
      const first = await store.get(sessionId, queued.runId);
      const moved = await store.transition(running);

      // Assess
      expect(first).toEqual(queued);
      expect(moved).toEqual({ applied: true });
      expect(await store.get(sessionId, queued.runId)).toMatchObject(binding);
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
