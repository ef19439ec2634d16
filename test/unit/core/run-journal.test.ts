import { describe, expect, it } from 'vitest';
import {
  AgentKernelError,
  type JsonValue,
  openRunJournal,
  RecordedToolFailure,
  type RunJournalStore,
  type ToolCallOutcome,
  ToolOutcomeUnknown,
} from '../../../lib/core/index.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/index.js';

/** The memory store, counting every request a journal makes. */
class CountingStore implements RunJournalStore {
  readonly inner = new InMemoryRunJournalStore();
  readonly calls: string[] = [];

  load(sessionId: string, runId: string) {
    this.calls.push('load');
    return this.inner.load(sessionId, runId);
  }
  putModel(sessionId: string, runId: string, key: string, response: JsonValue) {
    this.calls.push('putModel');
    return this.inner.putModel(sessionId, runId, key, response);
  }
  startCall(sessionId: string, runId: string, callId: string, tool: string) {
    this.calls.push('startCall');
    return this.inner.startCall(sessionId, runId, callId, tool);
  }
  finishCall(sessionId: string, runId: string, callId: string, outcome: ToolCallOutcome) {
    this.calls.push('finishCall');
    return this.inner.finishCall(sessionId, runId, callId, outcome);
  }
}

const open = (store: RunJournalStore, replay = true) =>
  openRunJournal({ store, sessionId: 's1', runId: 'r1', replay });

/** A tool that counts its real runs. */
function counter(result: unknown = { ok: 1 }) {
  const tool = {
    runs: 0,
    run: async () => {
      tool.runs++;
      return result;
    },
  };
  return tool;
}

describe('openRunJournal: tool calls', () => {
  it('runs a call once: a replay returns the recorded result without running it', async () => {
    // Prepare
    const store = new CountingStore();
    const book = counter({ booked: true });
    const first = await open(store, false);

    // Act
    const a = await first.tool({ callId: 'c1', tool: 'book' }, book.run);
    const replayed = await open(store);
    const b = await replayed.tool({ callId: 'c1', tool: 'book' }, book.run);

    // Assess
    expect(a).toEqual({ booked: true });
    expect(b).toEqual({ booked: true });
    expect(book.runs).toBe(1);
    expect(store.calls).toEqual(['startCall', 'finishCall', 'load']);
  });

  it('tells where a call stands: none, started (unfinished), done; a replay reads no request for it', async () => {
    // Prepare: c1 finished, c2 started and never finished.
    const store = new CountingStore();
    const first = await open(store, false);
    await first.tool({ callId: 'c1', tool: 'book' }, counter().run);
    await store.inner.startCall('s1', 'r1', 'c2', 'book');

    // Act
    const replayed = await open(store);
    const states = ['c1', 'c2', 'c3'].map((id) => replayed.callState(id));

    // Assess
    expect(states).toEqual(['done', 'started', 'none']);
    expect(first.callState('c1')).toBe('done');
    expect(store.calls).toEqual(['startCall', 'finishCall', 'load']);
  });

  it('replays a recorded failure as the same model-visible error', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    const first = await open(store);
    const declined = new AgentKernelError('card-declined', 'The card was declined.');
    await first
      .tool({ callId: 'c1', tool: 'pay' }, async () => {
        throw declined;
      })
      .catch(() => undefined);
    const runs = counter();

    // Act
    const err = await (await open(store))
      .tool({ callId: 'c1', tool: 'pay' }, runs.run)
      .catch((e) => e);

    // Assess
    expect(err).toBeInstanceOf(RecordedToolFailure);
    expect(err).toMatchObject({
      code: 'card-declined',
      kind: 'card-declined',
      message: 'The card was declined.',
    });
    expect(runs.runs).toBe(0);
  });

  it('records a foreign error by its class name only, never its text', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    const journal = await open(store);

    // Act
    await journal
      .tool({ callId: 'c1', tool: 'pay' }, async () => {
        throw new TypeError('token sk-secret-123 rejected');
      })
      .catch(() => undefined);
    const entries = await store.load('s1', 'r1');

    // Assess
    expect(JSON.stringify(entries)).not.toContain('sk-secret');
    expect(entries[0]).toMatchObject({
      status: 'done',
      outcome: {
        ok: false,
        error: { kind: 'tool-failed', message: 'The tool failed with TypeError.' },
      },
    });
  });

  it('never reruns a call that started and did not finish: the outcome is unknown', async () => {
    // Prepare: an earlier attempt died during the call.
    const store = new InMemoryRunJournalStore();
    await store.startCall('s1', 'r1', 'c1', 'pay');
    const pay = counter();

    // Act
    const err = await (await open(store))
      .tool({ callId: 'c1', tool: 'pay' }, pay.run)
      .catch((e) => e);
    const paused = await (await open(store))
      .tool({ callId: 'c1', tool: 'pay', effects: { onUnknownOutcome: 'pause' } }, pay.run)
      .catch((e) => e);

    // Assess
    expect(err).toBeInstanceOf(ToolOutcomeUnknown);
    expect(err).toMatchObject({
      code: 'tool-outcome-unknown',
      pause: false,
      callId: 'c1',
      tool: 'pay',
    });
    expect(paused).toMatchObject({ code: 'tool-outcome-unknown', pause: true });
    expect(pay.runs).toBe(0);
  });

  it('catches an earlier attempt it did not read through the conditional start', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    await store.startCall('s1', 'r1', 'c1', 'pay');
    await store.finishCall('s1', 'r1', 'c1', { ok: true, result: 'paid' });
    const pay = counter();

    // Act: opened without replay (no load), the start loses and returns the recorded outcome.
    const result = await (await open(store, false)).tool({ callId: 'c1', tool: 'pay' }, pay.run);

    // Assess
    expect(result).toBe('paid');
    expect(pay.runs).toBe(0);
  });

  it('runs an idempotent call again after an unknown outcome and records it', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    await store.startCall('s1', 'r1', 'c1', 'put');
    const put = counter('stored');

    // Act
    const result = await (await open(store)).tool(
      { callId: 'c1', tool: 'put', effects: { idempotent: true } },
      put.run,
    );
    const again = await (await open(store)).tool({ callId: 'c1', tool: 'put' }, put.run);

    // Assess
    expect([result, again]).toEqual(['stored', 'stored']);
    expect(put.runs).toBe(1);
  });

  it('runs a read-only call every time without journal requests', async () => {
    // Prepare
    const store = new CountingStore();
    const read = counter();
    const journal = await open(store, false);

    // Act
    await journal.tool({ callId: 'c1', tool: 'read', effects: { readOnly: true } }, read.run);
    await journal.tool({ callId: 'c1', tool: 'read', effects: { readOnly: true } }, read.run);

    // Assess
    expect(read.runs).toBe(2);
    expect(store.calls).toEqual([]);
    expect(journal.toolCalls()).toBe(1);
  });

  it('leaves a cancelled call started: its outcome stays unknown', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    const abort = new Error('stop');
    abort.name = 'AbortError';

    // Act
    await (await open(store))
      .tool({ callId: 'c1', tool: 'pay' }, async () => {
        throw abort;
      })
      .catch(() => undefined);

    // Assess
    expect(await store.load('s1', 'r1')).toMatchObject([{ callId: 'c1', status: 'started' }]);
  });
});

describe('openRunJournal: model responses, counts, keys', () => {
  it('serves a recorded model response to a replay; the first response stays', async () => {
    // Prepare
    const store = new CountingStore();
    const first = await open(store, false);

    // Act
    await first.recordModel('k1', { callId: 'call-a' });
    await first.recordModel('k1', { callId: 'call-b' });
    const replayed = await open(store);

    // Assess
    expect(first.recordedModel('k1')).toEqual({ callId: 'call-a' });
    expect(replayed.recordedModel('k1')).toEqual({ callId: 'call-a' });
    expect(replayed.recordedModel('k2')).toBeUndefined();
    expect(store.calls.filter((c) => c === 'putModel')).toHaveLength(1);
  });

  it('counts calls over every attempt, per tool, each call id once', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    const first = await open(store);
    await first.tool({ callId: 'c1', tool: 'a' }, async () => 1);
    await first.tool({ callId: 'c2', tool: 'b' }, async () => 2);

    // Act
    const second = await open(store);
    second.countCall('c3', 'a');
    second.countCall('c3', 'a');
    second.countCall('c1', 'a');

    // Assess
    expect(second.toolCalls()).toBe(3);
    expect(second.toolCalls('a')).toBe(2);
    expect(second.toolCalls('b')).toBe(1);
    expect(second.recordedCall('c1')).toMatchObject({ status: 'done', tool: 'a' });
    expect(second.recordedCall('c3')).toBeUndefined();
  });

  it('gives each call a key stable across attempts and distinct per call and run', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    const [a, b] = [await open(store), await open(store)];
    const other = await openRunJournal({ store, sessionId: 's1', runId: 'r2', replay: false });

    // Assess
    expect(a.idempotencyKey('c1')).toBe(b.idempotencyKey('c1'));
    expect(a.idempotencyKey('c1')).not.toBe(a.idempotencyKey('c2'));
    expect(a.idempotencyKey('c1')).not.toBe(other.idempotencyKey('c1'));
  });
});
