import { describe, expect, it } from 'vitest';
import {
  AgentKernelError,
  type JournalRecords,
  openRunJournal,
  RecordedToolFailure,
  type RunJournalStore,
  ToolOutcomeUnknown,
} from '../../../lib/core/index.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/index.js';

/** What a write carried: `+k1` a model response, `+c1` a call's outcome. */
function carried(records: JournalRecords | undefined): string {
  const models = (records?.models ?? []).map((m) => ` +${m.key}`);
  const outcomes = (records?.outcomes ?? []).map((o) => ` +${o.callId}`);
  return [...models, ...outcomes].join('');
}

/** The memory store, logging every request a journal makes and what each write carried. */
class CountingStore implements RunJournalStore {
  readonly inner = new InMemoryRunJournalStore();
  readonly calls: string[] = [];
  /** The next start throws (a throttled or failed request), writing nothing. */
  failNextStart = false;

  load(sessionId: string, runId: string) {
    this.calls.push('load');
    return this.inner.load(sessionId, runId);
  }
  async startCall(
    sessionId: string,
    runId: string,
    callId: string,
    tool: string,
    records?: JournalRecords,
  ) {
    this.calls.push(`startCall ${callId}${carried(records)}`);
    if (this.failNextStart) {
      this.failNextStart = false;
      throw new Error('throttled');
    }
    return this.inner.startCall(sessionId, runId, callId, tool, records);
  }
  record(sessionId: string, runId: string, records: JournalRecords) {
    this.calls.push(`record${carried(records)}`);
    return this.inner.record(sessionId, runId, records);
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
    await first.flush();
    const replayed = await open(store);
    const b = await replayed.tool({ callId: 'c1', tool: 'book' }, book.run);

    // Assess
    expect(a).toEqual({ booked: true });
    expect(b).toEqual({ booked: true });
    expect(book.runs).toBe(1);
    expect(store.calls).toEqual(['startCall c1', 'record +c1', 'load']);
  });

  it('tells where a call stands: none, started (unfinished), done; a replay reads no request for it', async () => {
    // Prepare: c1 finished, c2 started and never finished.
    const store = new CountingStore();
    const first = await open(store, false);
    await first.tool({ callId: 'c1', tool: 'book' }, counter().run);
    await first.flush();
    await store.inner.startCall('s1', 'r1', 'c2', 'book');

    // Act
    const replayed = await open(store);
    const states = ['c1', 'c2', 'c3'].map((id) => replayed.callState(id));

    // Assess
    expect(states).toEqual(['done', 'started', 'none']);
    expect(first.callState('c1')).toBe('done');
    expect(store.calls).toEqual(['startCall c1', 'record +c1', 'load']);
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
    await first.flush();
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
    await journal.flush();
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
    const rerun = await open(store);
    const result = await rerun.tool(
      { callId: 'c1', tool: 'put', effects: { idempotent: true } },
      put.run,
    );
    await rerun.flush();
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
    const journal = await open(store);
    await journal
      .tool({ callId: 'c1', tool: 'pay' }, async () => {
        throw abort;
      })
      .catch(() => undefined);
    await journal.flush();

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
    await first.flush();
    const replayed = await open(store);

    // Assess
    expect(first.recordedModel('k1')).toEqual({ callId: 'call-a' });
    expect(replayed.recordedModel('k1')).toEqual({ callId: 'call-a' });
    expect(replayed.recordedModel('k2')).toBeUndefined();
    expect(store.calls).toEqual(['record +k1', 'load']);
  });

  it('counts calls over every attempt, per tool, each call id once', async () => {
    // Prepare
    const store = new InMemoryRunJournalStore();
    const first = await open(store);
    await first.tool({ callId: 'c1', tool: 'a' }, async () => 1);
    await first.tool({ callId: 'c2', tool: 'b' }, async () => 2);
    await first.flush();

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

describe('openRunJournal: folded writes (k tool calls, at most k+1 writes)', () => {
  it('carries the response on the first start and each outcome on the next write', async () => {
    // Prepare
    const store = new CountingStore();
    const journal = await open(store, false);
    const calls = ['c1', 'c2', 'c3'];

    // Act
    await journal.recordModel('k1', { calls });
    for (const callId of calls) await journal.tool({ callId, tool: 'pay' }, counter().run);
    await journal.flush();
    await journal.flush();

    // Assess: 3 calls, 4 writes; a second flush holds nothing and writes nothing.
    expect(store.calls).toEqual([
      'startCall c1 +k1',
      'startCall c2 +c1',
      'startCall c3 +c2',
      'record +c3',
    ]);
    expect(await store.inner.load('s1', 'r1')).toMatchObject([
      { kind: 'model', key: 'k1' },
      ...calls.map((callId) => ({ callId, status: 'done' })),
    ]);
  });

  it('writes a response no call followed (a pause before the tool) when flushed', async () => {
    // Prepare
    const store = new CountingStore();
    const journal = await open(store, false);
    await journal.recordModel('k1', { call: 'c1' });

    // Act
    await journal.flush();
    const replayed = await open(store);

    // Assess
    expect(replayed.recordedModel('k1')).toEqual({ call: 'c1' });
  });

  it('holds again what a lost start carried, and writes it with the next write', async () => {
    // Prepare: another attempt started c2 and never finished it.
    const store = new CountingStore();
    await store.inner.startCall('s1', 'r1', 'c2', 'pay');
    const journal = await open(store, false);
    await journal.tool({ callId: 'c1', tool: 'pay' }, counter().run);

    // Act
    const lost = await journal.tool({ callId: 'c2', tool: 'pay' }, counter().run).catch((e) => e);
    await journal.flush();

    // Assess
    expect(lost).toBeInstanceOf(ToolOutcomeUnknown);
    expect(store.calls).toEqual(['startCall c1', 'startCall c2 +c1', 'record +c1']);
    expect((await open(store)).callState('c1')).toBe('done');
  });

  it('holds again what a failed start carried: the call does not run, the outcome is kept', async () => {
    // Prepare
    const store = new CountingStore();
    const journal = await open(store, false);
    await journal.tool({ callId: 'c1', tool: 'pay' }, counter().run);
    store.failNextStart = true;
    const second = counter();

    // Act
    const err = await journal.tool({ callId: 'c2', tool: 'pay' }, second.run).catch((e) => e);
    await journal.tool({ callId: 'c3', tool: 'pay' }, counter().run);
    await journal.flush();

    // Assess
    expect((err as Error).message).toBe('throttled');
    expect(second.runs).toBe(0);
    expect(store.calls.slice(1)).toEqual(['startCall c2 +c1', 'startCall c3 +c1', 'record +c3']);
    const replayed = await open(store);
    expect(['c1', 'c2', 'c3'].map((id) => replayed.callState(id))).toEqual([
      'done',
      'none',
      'done',
    ]);
  });

  it('leaves an outcome never flushed unknown: the replay does not run the call again', async () => {
    // Prepare: the process died after the tool ran, before the write its outcome rode on.
    const store = new CountingStore();
    const pay = counter();
    const dead = await open(store, false);
    await dead.tool({ callId: 'c1', tool: 'pay' }, pay.run);

    // Act
    const err = await (await open(store))
      .tool({ callId: 'c1', tool: 'pay' }, pay.run)
      .catch((e) => e);

    // Assess
    expect(err).toBeInstanceOf(ToolOutcomeUnknown);
    expect(pay.runs).toBe(1);
  });

  it('writes outcomes of calls run side by side in one write', async () => {
    // Prepare
    const store = new CountingStore();
    const journal = await open(store, false);
    await journal.recordModel('k1', { calls: 3 });

    // Act
    await Promise.all(
      ['c1', 'c2', 'c3'].map((callId) => journal.tool({ callId, tool: 'pay' }, counter().run)),
    );
    await journal.flush();

    // Assess: the starts ran before any outcome existed; the three outcomes share one write.
    expect(store.calls.filter((c) => c.startsWith('record'))).toHaveLength(1);
    expect(store.calls).toHaveLength(4);
    const replayed = await open(store);
    expect(['c1', 'c2', 'c3'].map((id) => replayed.callState(id))).toEqual([
      'done',
      'done',
      'done',
    ]);
  });
});
