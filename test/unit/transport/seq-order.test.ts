import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SeqOrder } from '../../../lib/transport/index.js';
import { ClientMessageSchema } from '../../../lib/transport/protocol.js';

const message = (seq: number, last: number) => ({
  seq,
  events: [{ type: seq === last ? 'run-finished' : 'text-delta' }],
});

describe('SeqOrder (a reconnecting client: stored and live messages, in seq order, once each)', () => {
  it('any arrival order with repeats gives afterSeq+1 … terminal once, gap-free', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: -1, max: 30 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.infiniteStream(fc.nat()),
        (last, from, repeats, shuffle) => {
          const after = Math.min(from, last);
          // Both senders: every seq after `after`, some again, in any order.
          const all = [...Array(last - after).keys()].map((i) => i + after + 1);
          const sent = [...all, ...repeats.map((r) => all[r % Math.max(all.length, 1)])]
            .filter((s): s is number => s !== undefined)
            .map((s) => ({ s, key: shuffle.next().value }))
            .sort((a, b) => a.key - b.key)
            .map(({ s }) => message(s, last));
          const order = new SeqOrder(after);
          const out = sent.flatMap((m) => order.accept(m));
          expect(out.map((m) => m.seq)).toEqual(all);
          expect(order.ended).toBe(all.length > 0);
          expect(order.waiting).toBe(0);
        },
      ),
    );
  });

  it('holds a message back until the seqs before it came, and drops what is had', () => {
    const order = new SeqOrder(4);
    expect(order.accept(message(7, 9))).toEqual([]);
    expect(order.accept(message(4, 9))).toEqual([]);
    expect(order.waiting).toBe(1);
    expect(order.accept(message(5, 9)).map((m) => m.seq)).toEqual([5]);
    expect(order.accept(message(6, 9)).map((m) => m.seq)).toEqual([6, 7]);
    expect(order.next).toBe(8);
    expect(order.accept(message(7, 9))).toEqual([]);
  });

  it('a void marker covers from…seq: ready when the seq waited for is in it, then seq + 1', () => {
    // 0…2 stored; a stopped attempt sent 3…5 live and died; the marker takes 40 (sent by none).
    const marker = { seq: 40, from: 3, events: [{ type: 'run-retrying' }] };
    // A client that had up to 5: the marker's seq is new to it, 6…39 void: it goes on at 41.
    const had = new SeqOrder(5);
    expect(had.accept(message(42, 42))).toEqual([]);
    expect(had.accept(marker).map((m) => m.seq)).toEqual([40]);
    expect(had.next).toBe(41);
    expect(had.accept(message(41, 42)).map((m) => m.seq)).toEqual([41, 42]);
    expect(had.ended).toBe(true);
    // One from the start: 0…2 stored, the marker, the rest; live copies of 4, 5 arrive first.
    const fresh = new SeqOrder(-1);
    expect(fresh.accept(message(4, 42))).toEqual([]);
    expect(fresh.accept(marker)).toEqual([]);
    expect(fresh.accept(message(5, 42))).toEqual([]);
    const out = [0, 1, 2, 41, 42].flatMap((s) => fresh.accept(message(s, 42)));
    expect(out.map((m) => [m.from, m.seq])).toEqual([
      [undefined, 0],
      [undefined, 1],
      [undefined, 2],
      [3, 40],
      [undefined, 41],
      [undefined, 42],
    ]);
    expect(fresh.waiting).toBe(0);
    // A seq the marker closed, arriving late, is dropped; so is the marker again.
    expect(had.accept(message(7, 42))).toEqual([]);
    const reconnected = new SeqOrder(39);
    expect(reconnected.accept(marker).map((m) => m.seq)).toEqual([40]);
    expect(reconnected.accept(marker)).toEqual([]);
    // A client past the marker's seq does not take it.
    expect(new SeqOrder(40).accept(marker)).toEqual([]);
  });

  it('subscribe: afterSeq is a whole number and needs the runId it counts in', () => {
    const ok = { action: 'subscribe', sessionId: 's', runId: 'r', afterSeq: 3 };
    expect(ClientMessageSchema.safeParse(ok).success).toBe(true);
    expect(ClientMessageSchema.safeParse({ ...ok, afterSeq: undefined }).success).toBe(true);
    for (const afterSeq of [-1, 1.5, '3', null]) {
      expect(ClientMessageSchema.safeParse({ ...ok, afterSeq }).success).toBe(false);
    }
    const { runId: _r, ...noRun } = ok;
    const parsed = ClientMessageSchema.safeParse(noRun);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['runId']);
  });
});
