import { describe, expect, it } from 'vitest';
import { continuingSeq } from '../../../lib/app/jobs/stored-events.js';
import { WriteBehind } from '../../../lib/app/jobs/write-behind.js';
import type { StoredMessage } from '../../../lib/app/ports/run-events.js';
import type { RunRecord } from '../../../lib/app/ports/run-records.js';
import type { StreamEvent } from '../../../lib/core/events.js';
import { InMemoryRunEventStore } from '../../../lib/stores/index.js';
import { MemoryDelivery } from '../../../lib/transport/delivery.js';
import type { EventsMessage } from '../../../lib/transport/protocol.js';

const runId = 'run-1';
const sessionId = 's-1';
const binding = { owner: 'alice', incarnation: 'life-1' };
const delta = (seq: number): StreamEvent => ({
  type: 'text-delta',
  runId,
  messageId: 'm',
  delta: `t${seq}`,
});
const msg = (seq: number, events = [delta(seq)]): EventsMessage => ({
  type: 'events',
  sessionId,
  runId,
  seq,
  events,
});
const finished = (seq: number) =>
  msg(seq, [
    {
      type: 'run-finished',
      runId,
      reply: { status: 'completed', runId, sessionId, agent: 'a', text: 'x' },
    } as StreamEvent,
  ]);

/** A store that counts its appends (one per stored range). */
function counted() {
  const store = new InMemoryRunEventStore();
  const ranges: number[][] = [];
  const append = store.append.bind(store);
  store.append = async (range, b) => {
    ranges.push(range.messages.map((m) => m.seq));
    await append(range, b);
  };
  return { store, ranges };
}

describe('write-behind stored events', () => {
  it('sends at once, stores a range when the buffer is old enough and before the terminal is sent', async () => {
    const { store, ranges } = counted();
    const delivery = new MemoryDelivery();
    let clock = 0;
    const behind = new WriteBehind(delivery, store, binding, 1000, () => clock);
    for (const seq of [0, 1, 2]) {
      clock += 400;
      await behind.deliver(msg(seq));
      expect(delivery.delivered.at(-1)?.seq).toBe(seq);
    }
    expect(ranges).toEqual([]);
    clock += 700;
    await behind.deliver(msg(3));
    expect(ranges).toEqual([[0, 1, 2, 3]]);
    await behind.deliverMany([msg(4), msg(5)]);
    // The terminal goes out only once everything before it and itself is stored.
    const sent = delivery.delivered.length;
    const terminal = behind.deliver(finished(6));
    expect(delivery.delivered.length).toBe(sent);
    await terminal;
    expect(ranges).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6],
    ]);
    expect(delivery.delivered.at(-1)?.seq).toBe(6);
    const page = await store.read(sessionId, runId, { after: -1, limit: 100 });
    expect(page.batches.map((b) => b.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('a store that keeps failing fails the next send, and the terminal is never sent unstored', async () => {
    // Prepare
    const store = new InMemoryRunEventStore();
    store.append = async () => {
      throw new Error('throttled');
    };
    const delivery = new MemoryDelivery();
    const behind = new WriteBehind(delivery, store, binding, 0);

    // Act: 0 is sent (its write fails behind it); 1 and the terminal find the retry failing
    await behind.deliver(msg(0));
    const second = behind.deliver(msg(1));
    const terminal = behind.deliver(finished(2));

    // Assess
    await expect(second).rejects.toThrow('throttled');
    await expect(terminal).rejects.toThrow('throttled');
    expect(delivery.delivered.map((m) => m.seq)).toEqual([0]);
  });

  it('a write throttled once is tried again, as the same range, before the next send', async () => {
    // Prepare
    const { store, ranges } = counted();
    const append = store.append.bind(store);
    let throttle = 1;
    store.append = async (range, b) => {
      if (throttle-- > 0) {
        ranges.push([]); // the failed write, marked
        throw new Error('throttled');
      }
      await append(range, b);
    };
    const delivery = new MemoryDelivery();
    const behind = new WriteBehind(delivery, store, binding, 0);

    // Act
    for (const seq of [0, 1]) await behind.deliver(msg(seq));
    await behind.deliver(finished(2));

    // Assess
    expect(ranges).toEqual([[], [0], [1], [2]]);
    expect(delivery.delivered.map((m) => m.seq)).toEqual([0, 1, 2]);
    const page = await store.read(sessionId, runId, { after: -1, limit: 100 });
    expect(page.batches.map((b) => b.seq)).toEqual([0, 1, 2]);
  });

  it('a write that landed and failed is the same range again: a no-op, not a taken seq', async () => {
    // Prepare: the first write lands and its answer is lost
    const { store, ranges } = counted();
    const append = store.append.bind(store);
    let lose = 1;
    store.append = async (range, b) => {
      await append(range, b);
      if (lose-- > 0) throw new Error('socket hang up');
    };
    const delivery = new MemoryDelivery();
    const behind = new WriteBehind(delivery, store, binding, 60_000);

    // Act
    await behind.deliverMany([msg(0), msg(1)]);
    await behind.flush().catch(() => undefined);
    await behind.deliver(msg(2));
    await behind.deliver(finished(3));

    // Assess
    expect(ranges).toEqual([
      [0, 1],
      [0, 1],
      [2, 3],
    ]);
    const page = await store.read(sessionId, runId, { after: -1, limit: 100 });
    expect(page.batches.map((b) => b.seq)).toEqual([0, 1, 2, 3]);
  });

  it('past the save, a terminal send retried after its store or delivery failed goes out once, stored once', async () => {
    // Prepare: the terminal's store fails once, then its delivery fails once
    const { store, ranges } = counted();
    const append = store.append.bind(store);
    let throttle = 0;
    store.append = async (range, b) => {
      if (throttle-- > 0) throw new Error('throttled');
      await append(range, b);
    };
    let refuse = 0;
    const delivery = new MemoryDelivery({
      fail: () => (refuse-- > 0 ? new Error('queue down') : undefined),
    });
    const behind = new WriteBehind(delivery, store, binding, 60_000);
    await behind.deliver(msg(0));

    // Act: the run job retries the same send in place (afterTurn)
    throttle = 1;
    await expect(behind.deliver(finished(1))).rejects.toThrow('throttled');
    refuse = 1;
    await expect(behind.deliver(finished(1))).rejects.toThrow('queue down');
    await behind.deliver(finished(1));

    // Assess
    expect(delivery.delivered.map((m) => m.seq)).toEqual([0, 1]);
    expect(ranges).toEqual([[0, 1]]);
    const page = await store.read(sessionId, runId, { after: -1, limit: 100 });
    expect(page.batches.map((b) => b.seq)).toEqual([0, 1]);
  });

  it('a message past the next seq: the skipped seqs get a void marker, stored and sent', async () => {
    const store = new InMemoryRunEventStore();
    const delivery = new MemoryDelivery();
    const behind = new WriteBehind(delivery, store, binding, 60_000);
    await behind.deliver(msg(0));
    await behind.deliver(finished(40));
    // The marker takes the last skipped seq and covers back to the first: 1…39.
    expect(delivery.delivered.map((m) => [m.from, m.seq])).toEqual([
      [undefined, 0],
      [1, 39],
      [undefined, 40],
    ]);
    const page = await store.read(sessionId, runId, { after: -1, limit: 100 });
    expect(page.batches.map((b) => [b.from, b.seq])).toEqual([
      [undefined, 0],
      [1, 39],
      [undefined, 40],
    ]);
    expect(page.batches[1]?.events[0]).toMatchObject({ type: 'run-retrying', code: 'events-void' });
  });

  it('a redelivery closes what was sent and never stored with a marker at the reserved seq, once', async () => {
    const store = new InMemoryRunEventStore();
    await store.append({ sessionId, runId, messages: [0, 1, 2].map((s) => msg(s)) }, binding);
    // The dead attempt reserved up to 33 (nextSeq 34) and may have sent 3…33: 34 none sent.
    const previous = { status: 'running', nextSeq: 34 } as unknown as RunRecord;
    const start = await continuingSeq(store, { sessionId, runId }, previous, true, 34, binding);
    expect(start.firstSeq).toBe(35);
    expect(start.resend?.map((m) => [m.from, m.seq])).toEqual([
      [undefined, 0],
      [undefined, 1],
      [undefined, 2],
      [3, 34],
    ]);
    expect(start.resend?.at(-1)?.events).toEqual([
      expect.objectContaining({ type: 'run-retrying', code: 'events-void' }),
    ]);
    expect(await store.last(sessionId, runId)).toMatchObject({ seq: 34, from: 3 });
    // A client that saw the dead attempt's 3…10 live: no seq of those comes again.
    const live = [...Array(11).keys()];
    expect(live).not.toContain(start.resend?.at(-1)?.seq);
    // Nothing left to close the second time (the record still at 34): it goes on at 35.
    const again = await continuingSeq(store, { sessionId, runId }, previous, true, 34, binding);
    expect(again.firstSeq).toBe(35);
    expect(again.resend?.at(-1)).toMatchObject({ seq: 34, from: 3 });
    expect(await store.last(sessionId, runId)).toMatchObject({ seq: 34, from: 3 });
  });

  it('a stored pause a resume took on (record running again): its unstored seqs get a marker', async () => {
    const store = new InMemoryRunEventStore();
    const paused: StoredMessage = {
      seq: 2,
      events: [{ type: 'run-paused', runId, sessionId, interruptions: [] } as StreamEvent],
    };
    await store.append({ sessionId, runId, messages: [msg(0), msg(1), paused] }, binding);
    // Still paused (a first resume): it goes on right after the pause, nothing to close.
    const waiting = { status: 'paused', nextSeq: 3 } as unknown as RunRecord;
    expect((await continuingSeq(store, { sessionId, runId }, waiting, false, 3)).firstSeq).toBe(3);
    // The resume reserved 3…35 and died: a redelivery closes 3…36 at 36 and goes on at 37.
    const resumed = { status: 'running', nextSeq: 36 } as unknown as RunRecord;
    const start = await continuingSeq(store, { sessionId, runId }, resumed, true, 36, binding);
    expect(start.firstSeq).toBe(37);
    expect(start.resend?.at(-1)).toMatchObject({ seq: 36, from: 3 });
  });

  it('a redelivery of a run that stored nothing: the marker at the reserved seq covers from 0', async () => {
    const store = new InMemoryRunEventStore();
    const previous = { status: 'running', nextSeq: 33 } as unknown as RunRecord;
    const start = await continuingSeq(store, { sessionId, runId }, previous, true, 33, binding);
    expect(start.firstSeq).toBe(34);
    expect(start.resend?.map((m) => [m.from, m.seq])).toEqual([[0, 33]]);
    const page = await store.read(sessionId, runId, { after: 5, limit: 10 });
    expect(page.batches).toEqual([expect.objectContaining({ seq: 33, from: 0 })]);
  });
});
