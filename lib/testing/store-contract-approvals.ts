import { describe, expect, it } from 'vitest';
import type { PendingApprovalIndex, PendingApprovalPosition } from '../app/ports/approvals.js';
import type { PausedRun } from '../core/paused-run.js';
import type { PausedRunStore } from '../core/stores.js';
import { type StoreFactory, setupContract, uniqueId } from './store-contract-context.js';

type IndexedStore = PausedRunStore & PendingApprovalIndex;

function paused(sessionId: string, createdAt: number, patch: Partial<PausedRun> = {}): PausedRun {
  return {
    schemaVersion: 1,
    runId: uniqueId('run'),
    sessionId,
    owner: 'alice',
    agent: 'assistant',
    runner: 'openai',
    createdAt,
    expiresAt: createdAt + 3_600_000,
    status: 'pending',
    interruptions: [{ id: 'call-1', kind: 'tool-approval', toolName: 'refund' }],
    state: { step: 1 },
    ...patch,
  };
}

/** Every entry of the index (one owner's, or all), page by page. */
async function all(store: PendingApprovalIndex, owner?: string, limit = 2) {
  const seen: string[] = [];
  let after: PendingApprovalPosition | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const page = await store.pending({
      limit,
      ...(owner ? { owner } : {}),
      ...(after ? { after } : {}),
    });
    expect(page.entries.length).toBeLessThanOrEqual(limit);
    seen.push(...page.entries.map((e) => e.runId));
    const last = page.entries.at(-1);
    if (!page.more || !last) return seen;
    after = last;
  }
  throw new Error('the index never ended');
}

/**
 * Contract of the pending-approval index a paused-run store keeps (`GET /approvals`): written
 * with each pause, gone with the run (deleted or expired), oldest first, per owner or all, paged.
 */
export function pendingApprovalIndexContract(name: string, factory: StoreFactory<IndexedStore>) {
  describe(`PendingApprovalIndex contract: ${name}`, () => {
    it('lists every paused run oldest first, each owner only its own, page by page', async () => {
      // Prepare
      const { store, clock } = await setupContract(factory);
      const t = clock.now();
      const runs = [
        paused(uniqueId('s'), t + 30, { owner: 'bob' }),
        paused(uniqueId('s'), t + 10),
        paused(uniqueId('s'), t + 20),
        paused(uniqueId('s'), t + 40),
        paused(uniqueId('s'), t + 50, { owner: undefined }),
      ];
      const [bobs, first, second, third, ownerless] = runs as [PausedRun, ...PausedRun[]];

      // Act
      for (const run of runs) await store.put(run);
      const everything = await all(store);
      const alices = await all(store, 'alice');
      const onePage = await store.pending({ owner: 'bob', limit: 5 });

      // Assess
      const ids = (list: (PausedRun | undefined)[]) => list.map((r) => r?.runId);
      expect(everything).toEqual(ids([first, second, bobs, third, ownerless]));
      expect(alices).toEqual(ids([first, second, third]));
      expect(onePage).toEqual({
        entries: [
          { sessionId: bobs.sessionId, runId: bobs.runId, createdAt: t + 30, owner: 'bob' },
        ],
        more: false,
      });
    });

    it('orders runs paused at the same time by session, then run', async () => {
      // Prepare
      const { store, clock } = await setupContract(factory);
      const t = clock.now();
      const base = uniqueId('s');
      const runs = [
        paused(`${base}-b`, t, { runId: 'run-1' }),
        paused(base, t, { runId: 'run-2' }),
        paused(base, t, { runId: 'run-1' }),
      ];

      // Act
      for (const run of runs) await store.put(run);
      const page = await store.pending({ limit: 10 });

      // Assess
      expect(page.entries.map((e) => `${e.sessionId}/${e.runId}`)).toEqual([
        `${base}/run-1`,
        `${base}/run-2`,
        `${base}-b/run-1`,
      ]);
    });

    it('drops a deleted run and an expired one; a claimed run stays until it is deleted', async () => {
      // Prepare
      const { store, clock } = await setupContract(factory);
      const t = clock.now();
      const deleted = paused(uniqueId('s'), t);
      const claimed = paused(uniqueId('s'), t + 1);
      const expiring = paused(uniqueId('s'), t + 2, { expiresAt: t + 60_000 });
      for (const run of [deleted, claimed, expiring]) await store.put(run);

      // Act
      await store.delete(deleted.sessionId, deleted.runId);
      await store.claim(claimed.sessionId, claimed.runId);
      const beforeExpiry = await all(store, 'alice');
      clock.advance(120_000);
      const afterExpiry = await all(store);

      // Assess
      expect(beforeExpiry).toEqual([claimed.runId, expiring.runId]);
      expect(afterExpiry).toEqual([claimed.runId]);
    });

    it('lists a run paused again once, at its latest pause', async () => {
      // Prepare
      const { store, clock } = await setupContract(factory);
      const t = clock.now();
      const run = paused(uniqueId('s'), t);
      const other = paused(uniqueId('s'), t + 5);
      await store.put(run);
      await store.put(other);

      // Act: resumed, then paused again at a new interruption.
      await store.put({
        ...run,
        createdAt: t + 10,
        interruptions: [{ id: 'call-2', kind: 'input' }],
      });

      // Assess
      expect(await all(store)).toEqual([other.runId, run.runId]);
      expect(await all(store, 'alice')).toEqual([other.runId, run.runId]);
      const { entries } = await store.pending({ limit: 10 });
      expect(entries.at(-1)).toMatchObject({ runId: run.runId, createdAt: t + 10 });
    });
  });
}
