import { describe, expect, it } from 'vitest';
import type { RunJournalStore, ToolCallOutcome } from '../core/journal.js';
import {
  CONTRACT_TTL_SECONDS,
  incompressibleText,
  type StoreFactory,
  TestClock,
  uniqueId,
} from './store-contract-context.js';

async function setup(factory: StoreFactory<RunJournalStore>) {
  const clock = new TestClock();
  const store = await factory({ now: clock.now, ttlSeconds: CONTRACT_TTL_SECONDS });
  return { clock, store, sessionId: uniqueId('s'), runId: uniqueId('r') };
}

const ok: ToolCallOutcome = { ok: true, result: { booked: true, seats: [1, 2] } };

/**
 * Contract of a `RunJournalStore`: model responses first-writer-wins, tool calls started at most
 * once (of racing starts exactly one wins), outcomes recorded, one run's entries only.
 */
export function runJournalStoreContract(name: string, factory: StoreFactory<RunJournalStore>) {
  describe(`RunJournalStore contract: ${name}`, () => {
    it('loads nothing for an unknown run', async () => {
      // Prepare
      const { store, sessionId, runId } = await setup(factory);

      // Act
      const entries = await store.load(sessionId, runId);

      // Assess
      expect(entries).toEqual([]);
    });

    it('records a model response once: the first writer wins', async () => {
      // Prepare
      const { store, sessionId, runId } = await setup(factory);
      const first = { id: 'resp-1', output: [{ type: 'function_call', callId: 'c1' }] };

      // Act
      await store.record(sessionId, runId, { models: [{ key: 'k1', response: first }] });
      await store.record(sessionId, runId, { models: [{ key: 'k1', response: { id: 'resp-2' } }] });
      const entries = await store.load(sessionId, runId);

      // Assess
      expect(entries).toEqual([
        { kind: 'model', key: 'k1', response: first, at: expect.any(Number) },
      ]);
    });

    it('starts a call once; a second start loses and sees the first', async () => {
      // Prepare
      const { store, sessionId, runId } = await setup(factory);

      // Act
      const first = await store.startCall(sessionId, runId, 'c1', 'book');
      const second = await store.startCall(sessionId, runId, 'c1', 'book');

      // Assess
      expect(first).toEqual({ won: true });
      expect(second).toEqual({
        won: false,
        entry: {
          kind: 'tool',
          callId: 'c1',
          tool: 'book',
          status: 'started',
          at: expect.any(Number),
        },
      });
    });

    it('of ten racing starts of one call exactly one wins', async () => {
      // Prepare
      const { store, sessionId, runId } = await setup(factory);

      // Act
      const results = await Promise.all(
        Array.from({ length: 10 }, () => store.startCall(sessionId, runId, 'c1', 'pay')),
      );

      // Assess
      expect(results.filter((r) => r.won)).toHaveLength(1);
      expect(results.filter((r) => !r.won)).toHaveLength(9);
    });

    it('records outcomes; a later start returns the finished call with its outcome', async () => {
      // Prepare
      const { store, sessionId, runId } = await setup(factory);
      const failed: ToolCallOutcome = {
        ok: false,
        error: { kind: 'tool-error', message: 'The card was declined.' },
      };
      await store.startCall(sessionId, runId, 'c1', 'book');
      await store.startCall(sessionId, runId, 'c2', 'pay');

      // Act
      await store.record(sessionId, runId, { outcomes: [{ callId: 'c1', outcome: ok }] });
      await store.record(sessionId, runId, { outcomes: [{ callId: 'c2', outcome: failed }] });
      const again = await store.startCall(sessionId, runId, 'c1', 'book');
      const entries = await store.load(sessionId, runId);

      // Assess
      expect(again).toMatchObject({ won: false, entry: { status: 'done', outcome: ok } });
      // The run timeline's tool durations: done no earlier than started.
      for (const e of entries) expect(e.kind === 'tool' && (e.doneAt ?? -1) >= e.at).toBe(true);
      expect(entries).toEqual([
        {
          kind: 'tool',
          callId: 'c1',
          tool: 'book',
          status: 'done',
          outcome: ok,
          at: expect.any(Number),
          doneAt: expect.any(Number),
        },
        {
          kind: 'tool',
          callId: 'c2',
          tool: 'pay',
          status: 'done',
          outcome: failed,
          at: expect.any(Number),
          doneAt: expect.any(Number),
        },
      ]);
    });

    it('writes the records a start carries with it: the response and the earlier call outcome', async () => {
      // Prepare
      const { store, sessionId, runId } = await setup(factory);
      const response = { output: [{ callId: 'c1' }, { callId: 'c2' }] };
      const first = await store.startCall(sessionId, runId, 'c1', 'book', {
        models: [{ key: 'k1', response }],
      });

      // Act
      const second = await store.startCall(sessionId, runId, 'c2', 'pay', {
        outcomes: [{ callId: 'c1', outcome: ok }],
      });
      const entries = await store.load(sessionId, runId);
      const again = await store.startCall(sessionId, runId, 'c1', 'book');

      // Assess
      expect([first, second]).toEqual([{ won: true }, { won: true }]);
      expect(entries).toEqual([
        { kind: 'model', key: 'k1', response, at: expect.any(Number) },
        {
          kind: 'tool',
          callId: 'c1',
          tool: 'book',
          status: 'done',
          outcome: ok,
          at: expect.any(Number),
          doneAt: expect.any(Number),
        },
        { kind: 'tool', callId: 'c2', tool: 'pay', status: 'started', at: expect.any(Number) },
      ]);
      // A lost start finds the outcome wherever it was carried.
      expect(again).toMatchObject({ won: false, entry: { status: 'done', outcome: ok } });
    });

    it('writes nothing a lost start carried', async () => {
      // Prepare
      const { store, sessionId, runId } = await setup(factory);
      await store.startCall(sessionId, runId, 'c1', 'book');

      // Act
      const lost = await store.startCall(sessionId, runId, 'c1', 'book', {
        models: [{ key: 'k1', response: { n: 1 } }],
        outcomes: [{ callId: 'c0', outcome: ok }],
      });
      const entries = await store.load(sessionId, runId);

      // Assess
      expect(lost).toMatchObject({ won: false, entry: { status: 'started' } });
      expect(entries.map((e) => (e.kind === 'tool' ? e.callId : e.key))).toEqual(['c1']);
    });

    it('writes a response and several outcomes in one record; a key recorded keeps its first', async () => {
      // Prepare
      const { store, clock, sessionId, runId } = await setup(factory);
      await store.startCall(sessionId, runId, 'c1', 'book');
      await store.startCall(sessionId, runId, 'c2', 'book', {
        models: [{ key: 'k1', response: { n: 1 } }],
      });
      clock.advance(1000);

      // Act
      await store.record(sessionId, runId, {
        models: [
          { key: 'k1', response: { n: 2 } },
          { key: 'k2', response: { n: 3 } },
        ],
        outcomes: [
          { callId: 'c1', outcome: ok },
          { callId: 'c2', outcome: ok },
        ],
      });
      const entries = await store.load(sessionId, runId);

      // Assess
      expect(entries).toMatchObject([
        { kind: 'model', key: 'k1', response: { n: 1 } },
        { kind: 'model', key: 'k2', response: { n: 3 } },
        { kind: 'tool', callId: 'c1', status: 'done', outcome: ok },
        { kind: 'tool', callId: 'c2', status: 'done', outcome: ok },
      ]);
    });

    it('carries records too large for one item with a start: all are written', async () => {
      // Prepare
      const { store, sessionId, runId } = await setup(factory);
      const big = (n: number) => ({
        ok: true as const,
        result: { text: incompressibleText(150_000), n },
      });
      const outcomes = [1, 2, 3].map((n) => ({ callId: `c${n}`, outcome: big(n) }));

      // Act
      const started = await store.startCall(sessionId, runId, 'c4', 'book', {
        models: [{ key: 'k', response: { text: incompressibleText(150_000) } }],
        outcomes,
      });
      const entries = await store.load(sessionId, runId);

      // Assess
      expect(started).toEqual({ won: true });
      const done = entries.flatMap((e) => (e.kind === 'tool' && e.status === 'done' ? [e] : []));
      // Compared by id: a failure prints ids, not megabytes of text.
      expect(done.map((e) => e.callId).sort()).toEqual(['c1', 'c2', 'c3']);
      const sent = new Map(outcomes.map((o) => [o.callId, JSON.stringify(o.outcome)]));
      expect(done.every((e) => JSON.stringify(e.outcome) === sent.get(e.callId))).toBe(true);
      expect(entries.filter((e) => e.kind === 'model')).toHaveLength(1);
    });

    it('keeps runs and sessions apart, even a run id that prefixes another', async () => {
      // Prepare
      const { store, sessionId, runId } = await setup(factory);
      const other = uniqueId('s');
      await store.startCall(sessionId, runId, 'c1', 'book');
      await store.startCall(sessionId, `${runId}#x`, 'c2', 'book');
      await store.record(sessionId, `${runId}#x`, { models: [{ key: 'k', response: { n: 1 } }] });
      await store.startCall(other, runId, 'c3', 'book');

      // Act
      const entries = await store.load(sessionId, runId);

      // Assess
      expect(entries.map((e) => (e.kind === 'tool' ? e.callId : e.key))).toEqual(['c1']);
    });

    it('stores a large model response whole', async () => {
      // Prepare
      const { store, sessionId, runId } = await setup(factory);
      const response = { text: incompressibleText(100_000) };

      // Act
      await store.record(sessionId, runId, { models: [{ key: 'big', response }] });
      const [entry] = await store.load(sessionId, runId);

      // Assess
      expect(entry).toMatchObject({ kind: 'model', key: 'big', response });
    });

    it('forgets a run after its TTL: a call may start again', async () => {
      // Prepare
      const { store, clock, sessionId, runId } = await setup(factory);
      await store.startCall(sessionId, runId, 'c1', 'book');
      await store.record(sessionId, runId, { models: [{ key: 'k', response: { n: 1 } }] });

      // Act
      clock.advance((CONTRACT_TTL_SECONDS + 1) * 1000);
      const entries = await store.load(sessionId, runId);
      const restarted = await store.startCall(sessionId, runId, 'c1', 'book');

      // Assess
      expect(entries).toEqual([]);
      expect(restarted).toEqual({ won: true });
    });
  });
}
