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

/** One range of single-event messages `seqs`. */
function range(sessionId: string, runId: string, seqs: number[], text = 't') {
  return {
    sessionId,
    runId,
    messages: seqs.map((seq) => ({ seq, events: [delta(runId, `${text}${seq}`)] })),
  };
}

/**
 * Contract of a `RunEventStore`: contiguous ranges of messages, first writer wins per first seq,
 * read message by message from any seq (inside a range too).
 */
export function runEventStoreContract(name: string, factory: StoreFactory<RunEventStore>): void {
  describe(`RunEventStore contract: ${name}`, () => {
    it('reads the messages after a seq in seq order, page by page, with their binding', async () => {
      const { store, sessionId } = await setupContract(factory);
      const runId = uniqueId('run');
      for (const seqs of [[3, 4, 5], [0], [1, 2], [6, 7, 8, 9]]) {
        await store.append(range(sessionId, runId, seqs), alice);
      }
      const first = await store.read(sessionId, runId, { after: 0, limit: 2 });
      expect(first.batches.map((b) => b.seq)).toEqual([1, 2]);
      expect(first.more).toBe(true);
      // From inside a range: its messages after the seq only.
      const inside = await store.read(sessionId, runId, { after: 3, limit: 3 });
      expect(inside.batches.map((b) => b.seq)).toEqual([4, 5, 6]);
      expect(inside.more).toBe(true);
      const rest = await store.read(sessionId, runId, { after: 7, limit: 10 });
      expect(rest.batches.map((b) => b.seq)).toEqual([8, 9]);
      expect(rest.more).toBe(false);
      expect(rest.batches[0]).toMatchObject({ ...alice, events: [delta(runId, 't8')] });
      const all = await store.read(sessionId, runId, { after: -1, limit: 20 });
      expect(all.batches.map((b) => b.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // Stamped when stored (the run timeline's time axis), in the order they were appended.
      const at = new Map(all.batches.map((b) => [b.seq, b.at ?? Number.NaN]));
      for (const [earlier, later] of [
        [3, 0],
        [0, 1],
        [1, 6],
        [4, 5],
      ] as const) {
        expect(at.get(earlier)).toBeLessThanOrEqual(at.get(later) ?? Number.NaN);
      }
      expect((await store.last(sessionId, runId))?.seq).toBe(9);
      expect((await store.read(sessionId, runId, { after: 9, limit: 5 })).batches).toEqual([]);
    });

    it('keeps a void marker as the range `from`…`seq`: read from any seq it closes', async () => {
      const { store, sessionId } = await setupContract(factory);
      const runId = uniqueId('run');
      await store.append(range(sessionId, runId, [0, 1]), alice);
      const marker = {
        seq: 40,
        from: 2,
        events: [
          { type: 'run-retrying', runId, code: 'events-void', message: 'void' } as StreamEvent,
        ],
      };
      await store.append({ sessionId, runId, messages: [marker] }, alice);
      await store.append(range(sessionId, runId, [41, 42]), alice);
      const page = await store.read(sessionId, runId, { after: 17, limit: 10 });
      expect(page.batches.map((b) => [b.from, b.seq])).toEqual([
        [2, 40],
        [undefined, 41],
        [undefined, 42],
      ]);
      expect(page.batches[0]?.events).toEqual(marker.events);
      for (const after of [1, 2, 39]) {
        const first = (await store.read(sessionId, runId, { after, limit: 10 })).batches[0];
        expect(first).toMatchObject({ seq: 40, from: 2 });
      }
      expect((await store.read(sessionId, runId, { after: 40, limit: 10 })).batches[0]?.seq).toBe(
        41,
      );
      // The same marker again (a retried write) is a no-op; another at its first seq is refused.
      await store.append({ sessionId, runId, messages: [marker] }, alice);
      await expect(
        store.append({ sessionId, runId, messages: [{ ...marker, seq: 41 }] }, alice),
      ).rejects.toBeInstanceOf(SeqTaken);
      await store.append({ sessionId, runId, messages: [{ ...marker, seq: 50, from: 43 }] }, alice);
      expect(await store.last(sessionId, runId)).toMatchObject({ seq: 50, from: 43 });
      expect((await store.read(sessionId, runId, { after: 44, limit: 10 })).batches).toEqual([
        expect.objectContaining({ seq: 50, from: 43 }),
      ]);
      // A marker whose range is not contiguous with what it follows, or runs backwards: refused.
      const ahead = { ...marker, seq: 60, from: 53 };
      await expect(
        store.append(
          { sessionId, runId, messages: [...range(sessionId, runId, [51]).messages, ahead] },
          alice,
        ),
      ).rejects.toThrow(/contiguous/);
      await expect(
        store.append({ sessionId, runId, messages: [{ ...marker, seq: 50, from: 51 }] }, alice),
      ).rejects.toThrow(/contiguous/);
    });

    it('refuses a range that is empty or not contiguous, storing nothing', async () => {
      const { store, sessionId } = await setupContract(factory);
      const runId = uniqueId('run');
      await expect(store.append({ sessionId, runId, messages: [] }, alice)).rejects.toThrow();
      await expect(store.append(range(sessionId, runId, [0, 2]), alice)).rejects.toThrow(
        /contiguous/,
      );
      expect(await store.last(sessionId, runId)).toBeUndefined();
    });

    it('keeps the first content of a seq: the same again is a no-op, other content SeqTaken', async () => {
      const { store, sessionId } = await setupContract(factory);
      const runId = uniqueId('run');
      const message = range(sessionId, runId, [0, 1], 'first');
      await store.append(message, alice);
      const stamped = (await store.last(sessionId, runId))?.at;
      await store.append(message, alice);
      await expect(
        store.append(range(sessionId, runId, [0, 1], 'other'), alice),
      ).rejects.toBeInstanceOf(SeqTaken);
      // Another range at the same first seq (a racing attempt's marker): refused too.
      await expect(
        store.append(range(sessionId, runId, [0], 'first'), alice),
      ).rejects.toBeInstanceOf(SeqTaken);
      const page = await store.read(sessionId, runId, { after: -1, limit: 10 });
      expect(page.batches).toHaveLength(2);
      expect(page.batches[0]?.events).toEqual([delta(runId, 'first0')]);
      expect(page.batches[0]?.at).toBe(stamped);
    });

    it('keeps runs and sessions apart and answers nothing for an unknown run', async () => {
      const { store, sessionId } = await setupContract(factory);
      const runId = uniqueId('run');
      await store.append(range(sessionId, runId, [0], 'x'), alice);
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
      await store.append({ sessionId, runId, messages: [{ seq: 7, events }] }, alice);
      const page = await store.read(sessionId, runId, { after: 6, limit: 1 });
      expect(page.batches[0]?.events).toEqual(events);
    });

    it('forgets messages past the TTL', async () => {
      const { store, sessionId, clock } = await setupContract(factory);
      const runId = uniqueId('run');
      await store.append(range(sessionId, runId, [0], 'x'), alice);
      clock.advance((CONTRACT_TTL_SECONDS + 1) * 1000);
      expect((await store.read(sessionId, runId, { after: -1, limit: 5 })).batches).toEqual([]);
      expect(await store.last(sessionId, runId)).toBeUndefined();
      // An expired seq may be written again (the run is long gone).
      await store.append(range(sessionId, runId, [0], 'y'), alice);
    });
  });
}
