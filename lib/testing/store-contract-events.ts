import { describe, expect, it } from 'vitest';
import { type RunEventStore, SeqTaken } from '../app/ports/run-events.js';
import type { StreamEvent } from '../core/events.js';
import {
  CONTRACT_TTL_SECONDS,
  type StoreFactory,
  setupContract,
  uniqueId,
} from './store-contract-context.js';

function delta(runId: string, text: string): StreamEvent {
  return { type: 'text-delta', runId, messageId: 'm1', delta: text };
}

const alice = { owner: 'alice', incarnation: 'life-1' };

/** Contract of a `RunEventStore`: one message per (run, seq), first writer wins, read by range. */
export function runEventStoreContract(name: string, factory: StoreFactory<RunEventStore>): void {
  describe(`RunEventStore contract: ${name}`, () => {
    it('reads the messages after a seq in seq order, page by page, with their binding', async () => {
      const { store, sessionId } = await setupContract(factory);
      const runId = uniqueId('run');
      for (const seq of [2, 0, 1, 3, 4]) {
        await store.append({ sessionId, runId, seq, events: [delta(runId, `t${seq}`)] }, alice);
      }
      const first = await store.read(sessionId, runId, { after: 0, limit: 2 });
      expect(first.batches.map((b) => b.seq)).toEqual([1, 2]);
      expect(first.more).toBe(true);
      const rest = await store.read(sessionId, runId, { after: 2, limit: 10 });
      expect(rest.batches.map((b) => b.seq)).toEqual([3, 4]);
      expect(rest.more).toBe(false);
      expect(rest.batches[0]).toMatchObject({ ...alice, events: [delta(runId, 't3')] });
      const all = await store.read(sessionId, runId, { after: -1, limit: 10 });
      expect(all.batches.map((b) => b.seq)).toEqual([0, 1, 2, 3, 4]);
      // Stamped when stored (the run timeline's time axis), in the order they were appended.
      const at = new Map(all.batches.map((b) => [b.seq, b.at ?? Number.NaN]));
      for (const [earlier, later] of [
        [2, 0],
        [0, 1],
        [1, 3],
        [3, 4],
      ] as const) {
        expect(at.get(earlier)).toBeLessThanOrEqual(at.get(later) ?? Number.NaN);
      }
      expect((await store.last(sessionId, runId))?.seq).toBe(4);
    });

    it('keeps the first content of a seq: the same again is a no-op, other content SeqTaken', async () => {
      const { store, sessionId } = await setupContract(factory);
      const runId = uniqueId('run');
      const message = { sessionId, runId, seq: 0, events: [delta(runId, 'first')] };
      await store.append(message, alice);
      const stamped = (await store.last(sessionId, runId))?.at;
      await store.append(message, alice);
      await expect(
        store.append({ ...message, events: [delta(runId, 'other')] }, alice),
      ).rejects.toBeInstanceOf(SeqTaken);
      const page = await store.read(sessionId, runId, { after: -1, limit: 10 });
      expect(page.batches).toHaveLength(1);
      expect(page.batches[0]?.events).toEqual([delta(runId, 'first')]);
      expect(page.batches[0]?.at).toBe(stamped);
    });

    it('keeps runs and sessions apart and answers nothing for an unknown run', async () => {
      const { store, sessionId } = await setupContract(factory);
      const runId = uniqueId('run');
      await store.append({ sessionId, runId, seq: 0, events: [delta(runId, 'x')] }, alice);
      expect(
        (await store.read(sessionId, uniqueId('run'), { after: -1, limit: 5 })).batches,
      ).toEqual([]);
      expect((await store.read(uniqueId('s'), runId, { after: -1, limit: 5 })).batches).toEqual([]);
      expect(await store.last(sessionId, `${runId}x`)).toBeUndefined();
    });

    it('stores a large message (compressed where the store compresses)', async () => {
      const { store, sessionId } = await setupContract(factory);
      const runId = uniqueId('run');
      const events = Array.from({ length: 400 }, (_, i) => delta(runId, `token ${i} `.repeat(20)));
      await store.append({ sessionId, runId, seq: 7, events }, alice);
      const page = await store.read(sessionId, runId, { after: 6, limit: 1 });
      expect(page.batches[0]?.events).toEqual(events);
    });

    it('forgets messages past the TTL', async () => {
      const { store, sessionId, clock } = await setupContract(factory);
      const runId = uniqueId('run');
      await store.append({ sessionId, runId, seq: 0, events: [delta(runId, 'x')] }, alice);
      clock.advance((CONTRACT_TTL_SECONDS + 1) * 1000);
      expect((await store.read(sessionId, runId, { after: -1, limit: 5 })).batches).toEqual([]);
      expect(await store.last(sessionId, runId)).toBeUndefined();
      // An expired seq may be written again (the run is long gone).
      await store.append({ sessionId, runId, seq: 0, events: [delta(runId, 'y')] }, alice);
    });
  });
}
