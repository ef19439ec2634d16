import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../lib/core/index.js';
import {
  BatcherClosed,
  DEFAULT_IDLE_GAP_MS,
  DEFAULT_MAX_DELAY_MS,
  EventBatcher,
  type EventBatcherOptions,
  type EventsMessage,
  EventsMessageSchema,
  ForeignEvent,
  InvalidBatcherOptions,
  jsonBytes,
  type Scheduler,
} from '../../../lib/transport/index.js';

const runId = 'r1';
const sessionId = 's1';
const reply = { status: 'completed', runId, sessionId, agent: 'a', text: 'hi' } as const;
const started: StreamEvent = { type: 'run-started', runId, sessionId, agent: 'a' };
const finished: StreamEvent = { type: 'run-finished', runId, reply };
const delta = (text: string, messageId = 'm1'): StreamEvent => ({
  type: 'text-delta',
  runId,
  messageId,
  delta: text,
});

/** A clock that moves only when the test says so. */
class ManualScheduler implements Scheduler {
  now = 0;
  #next = 1;
  readonly #timers = new Map<number, { at: number; callback: () => void }>();

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.now + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  time(): number {
    return this.now;
  }

  get pending(): number {
    return this.#timers.size;
  }

  async advance(ms: number): Promise<void> {
    const until = this.now + ms;
    for (;;) {
      const due = [...this.#timers]
        .filter(([, t]) => t.at <= until)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.#timers.delete(due[0]);
      this.now = due[1].at;
      due[1].callback();
      await settle();
    }
    this.now = until;
    await settle();
  }
}

/** Lets pending promise callbacks run; no time passes. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The window's mechanics, by default without the first-delta rule (it has tests of its own). */
function setup(options: Partial<EventBatcherOptions> = {}) {
  const sent: EventsMessage[] = [];
  const sentAt: number[] = [];
  const scheduler = new ManualScheduler();
  const batcher = new EventBatcher({
    sessionId,
    runId,
    scheduler,
    firstDeltaAtOnce: false,
    // A fixed window: the adaptive one has tests of its own.
    maxDelayMs: 50,
    minDelayMs: 50,
    sink: async (message) => {
      sent.push(structuredClone(message));
      sentAt.push(scheduler.now);
    },
    ...options,
  });
  return { batcher, sent, sentAt, scheduler };
}

const allEvents = (sent: EventsMessage[]) => sent.flatMap((m) => m.events);

describe('EventBatcher', () => {
  it('numbers the messages of a run from 0 without gaps', async () => {
    // Prepare
    const { batcher, sent, scheduler } = setup();

    // Act
    await batcher.push(started);
    await scheduler.advance(50);
    await batcher.push(delta('a'));
    await batcher.flush();
    await batcher.push(delta('b'));
    await batcher.push(finished);

    // Assess: the terminal event goes alone, at its own seq
    expect(sent.map((m) => m.seq)).toEqual([0, 1, 2, 3]);
    expect(allEvents(sent)).toEqual([started, delta('a'), delta('b'), finished]);
    expect(sent[3]?.events).toEqual([finished]);
    for (const message of sent) expect(EventsMessageSchema.safeParse(message).success).toBe(true);
    expect(batcher.nextSeq).toBe(4);
  });

  it.each([
    ['run-finished', finished],
    [
      'run-paused',
      { type: 'run-paused', runId, sessionId, interruptions: [{ id: 'c', kind: 'tool-approval' }] },
    ],
    ['run-error', { type: 'run-error', runId, code: 'model-error', message: 'down' }],
  ] as [string, StreamEvent][])(
    'sends at once and alone on %s and ends the run',
    async (_type, last) => {
      // Prepare
      const { batcher, sent, scheduler } = setup();
      await batcher.push(started);
      await batcher.push(delta('a'));
      expect(sent).toEqual([]);

      // Act
      await batcher.push(last);

      // Assess: what was buffered goes first, the terminal event alone after it
      expect(sent).toHaveLength(2);
      expect(sent[0]?.events).toEqual([started, delta('a')]);
      expect(sent[1]?.events).toEqual([last]);
      expect(scheduler.pending).toBe(0);
      await expect(batcher.push(delta('late'))).rejects.toBeInstanceOf(BatcherClosed);
    },
  );

  it('sends the buffer maxDelayMs after its first event', async () => {
    // Prepare
    const { batcher, sent, scheduler } = setup({ maxDelayMs: 50 });

    // Act
    await batcher.push(delta('a'));
    await scheduler.advance(30);
    await batcher.push(delta('b'));
    await scheduler.advance(19);
    const before = sent.length;
    await scheduler.advance(1);

    // Assess
    expect(before).toBe(0);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.events).toEqual([delta('a'), delta('b')]);
    expect(scheduler.pending).toBe(0);
  });

  it('splits an oversized delta into pieces with the same ids, in order, each under the limit', async () => {
    // Prepare: quotes, multi-byte and astral characters make escaping and UTF-8 count
    const maxBytes = 2_048;
    const text = 'ab"c\\€😀\n'.repeat(1_500);
    const { batcher, sent } = setup({ maxBytes });
    await batcher.push(started);

    // Act
    await batcher.push(delta(text));
    await batcher.push({
      type: 'tool-call-args',
      runId,
      toolCallId: 't1',
      delta: '{"q":"'.padEnd(5_000, 'x'),
    });
    await batcher.push(finished);

    // Assess
    expect(sent.length).toBeGreaterThan(10);
    for (const message of sent) expect(jsonBytes(message)).toBeLessThanOrEqual(maxBytes);
    const texts = allEvents(sent).filter((e) => e.type === 'text-delta');
    expect(texts.every((e) => e.messageId === 'm1')).toBe(true);
    expect(texts.map((e) => e.delta).join('')).toBe(text);
    const args = allEvents(sent).filter((e) => e.type === 'tool-call-args');
    expect(args.every((e) => e.toolCallId === 't1')).toBe(true);
    expect(args.map((e) => e.delta).join('')).toBe('{"q":"'.padEnd(5_000, 'x'));
    expect(allEvents(sent)[0]).toEqual(started);
    expect(allEvents(sent).at(-1)).toEqual(finished);
    expect(sent.map((m) => m.seq)).toEqual(sent.map((_, i) => i));
  });

  it('starts a new message when the next event would not fit', async () => {
    // Prepare
    const maxBytes = 1_024;
    const { batcher, sent } = setup({ maxBytes });

    // Act
    for (let i = 0; i < 40; i++) await batcher.push(delta(`token-${i} `));
    await batcher.close();

    // Assess
    expect(sent.length).toBeGreaterThan(1);
    for (const message of sent) expect(jsonBytes(message)).toBeLessThanOrEqual(maxBytes);
    expect(allEvents(sent).map((e) => (e.type === 'text-delta' ? e.delta : ''))).toEqual(
      Array.from({ length: 40 }, (_, i) => `token-${i} `),
    );
    expect(batcher.stats).toMatchObject({ messages: sent.length, events: 40, oversized: 0 });
    expect(batcher.stats.bytes).toBe(sent.reduce((n, m) => n + jsonBytes(m), 0));
  });

  it('sends an oversized event that cannot be split alone', async () => {
    // Prepare
    const { batcher, sent } = setup({ maxBytes: 1_024 });
    const big: StreamEvent = {
      type: 'tool-call-result',
      runId,
      toolCallId: 't1',
      toolName: 'search',
      result: { rows: 'x'.repeat(4_000) },
    };

    // Act
    await batcher.push(delta('before'));
    await batcher.push(big);
    await batcher.push(delta('after'));
    await batcher.close();

    // Assess
    expect(sent.map((m) => m.events)).toEqual([[delta('before')], [big], [delta('after')]]);
    expect(batcher.stats.oversized).toBe(1);
  });

  it('calls the sink in order and never twice at once, coalescing while it is busy', async () => {
    // Prepare: a sink that finishes only when the test releases it
    const sent: EventsMessage[] = [];
    const releases: (() => void)[] = [];
    let active = 0;
    let maxActive = 0;
    const scheduler = new ManualScheduler();
    const batcher = new EventBatcher({
      sessionId,
      runId,
      scheduler,
      firstDeltaAtOnce: false,
      maxDelayMs: 50,
      sink: async (message) => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        await new Promise<void>((resolve) => releases.push(resolve));
        sent.push(message);
        active -= 1;
      },
    });

    // Act: the first batch is in flight while more events and timers arrive
    await batcher.push(delta('a'));
    await scheduler.advance(50);
    for (const t of ['b', 'c']) await batcher.push(delta(t));
    await scheduler.advance(50);
    await batcher.push(delta('d'));
    await scheduler.advance(50);
    releases.shift()?.();
    await settle();
    const closing = batcher.close();
    for (let i = 0; i < 5; i++) {
      releases.shift()?.();
      await settle();
    }
    await closing;

    // Assess
    expect(maxActive).toBe(1);
    expect(sent.map((m) => m.seq)).toEqual([0, 1]);
    expect(sent.map((m) => m.events.length)).toEqual([1, 3]);
  });

  it('surfaces a sink failure to the waiting call and to every later call', async () => {
    // Prepare
    const failure = new Error('queue down');
    const { batcher } = setup({
      sink: async () => {
        throw failure;
      },
    });

    // Act
    const pushed = batcher.push(finished);

    // Assess
    await expect(pushed).rejects.toBe(failure);
    await expect(batcher.flush()).rejects.toBe(failure);
    await expect(batcher.close()).rejects.toBe(failure);
  });

  it('keeps a failure of a timer-driven send for the next call', async () => {
    // Prepare
    const failure = new Error('socket gone');
    const { batcher, scheduler } = setup({
      sink: async () => {
        throw failure;
      },
    });
    await batcher.push(delta('a'));

    // Act
    await scheduler.advance(50);

    // Assess
    await expect(batcher.push(delta('b'))).rejects.toBe(failure);
    expect(batcher.stats.messages).toBe(0);
  });

  it('turns 1,000 one-token deltas into at most 50 messages', async () => {
    // Prepare: a token every 2 ms, as a fast model streams
    const { batcher, sent, scheduler } = setup();
    await batcher.push(started);
    await batcher.push({ type: 'message-start', runId, messageId: 'm1' });

    // Act
    for (let i = 0; i < 1_000; i++) {
      await batcher.push(delta(`t${i} `));
      await scheduler.advance(2);
    }
    await batcher.push({ type: 'message-end', runId, messageId: 'm1' });
    await batcher.push(finished);

    // Assess: the Python Agent Kernel sent one message per token
    expect(sent.length).toBeLessThanOrEqual(50);
    expect(1_000 / sent.length).toBeGreaterThanOrEqual(20);
    expect(batcher.stats).toMatchObject({ messages: sent.length, events: 1_004 });
    expect(sent.map((m) => m.seq)).toEqual(sent.map((_, i) => i));
  });

  it('sends the first text delta of each message at once and batches the rest', async () => {
    // Prepare: the default rule and window
    const { batcher, sent, scheduler } = setup({
      firstDeltaAtOnce: undefined,
      maxDelayMs: undefined,
    });
    const start = (messageId: string): StreamEvent => ({ type: 'message-start', runId, messageId });
    await batcher.push(started);
    await batcher.push(start('m1'));
    expect(sent).toEqual([]);

    // Act
    await batcher.push(delta('Hello', 'm1'));
    const afterFirst = sent.length;
    await batcher.push(delta(' there', 'm1'));
    await batcher.push(delta(' you', 'm1'));
    const beforeWindow = sent.length;
    await scheduler.advance(100);
    await batcher.push(start('m2'));
    await batcher.push(delta('Next', 'm2'));

    // Assess
    expect(afterFirst).toBe(1);
    expect(sent[0]?.events).toEqual([started, start('m1'), delta('Hello', 'm1')]);
    expect(beforeWindow).toBe(1);
    expect(sent[1]?.events).toEqual([delta(' there', 'm1'), delta(' you', 'm1')]);
    expect(sent[2]?.events).toEqual([start('m2'), delta('Next', 'm2')]);
    expect(sent.map((m) => m.seq)).toEqual([0, 1, 2]);
  });

  /** `count` deltas a `every` ms apart with the default rules; the send times and messages. */
  async function stream(count: number, every: number, options: Partial<EventBatcherOptions> = {}) {
    const run = setup({
      firstDeltaAtOnce: undefined,
      maxDelayMs: undefined,
      minDelayMs: undefined,
      ...options,
    });
    const pushedAt: number[] = [];
    await run.batcher.push(started);
    for (let i = 0; i < count; i++) {
      pushedAt.push(run.scheduler.now);
      await run.batcher.push(delta(`t${i} `));
      await run.scheduler.advance(every);
    }
    await run.batcher.push(finished);
    return { ...run, pushedAt };
  }

  it.each([
    [100, 10],
    [50, 9],
    [20, 5],
  ])('at %i tokens/s sends ≥ %ix fewer messages than tokens, in order', async (rate, fewer) => {
    // Act
    const { sent, sentAt } = await stream(1_000, 1_000 / rate);

    // Assess
    expect(1_000 / sent.length).toBeGreaterThanOrEqual(fewer);
    expect(sent.map((m) => m.seq)).toEqual(sent.map((_, i) => i));
    expect(allEvents(sent)).toHaveLength(1_002);
    expect(sent.at(-1)?.events).toEqual([finished]);
    // No event waits past the ceiling.
    const gaps = sentAt.slice(2).map((at, i) => at - (sentAt[i + 1] as number));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(DEFAULT_MAX_DELAY_MS + 1_000 / rate);
  });

  it('grows the window with the rate: a faster stream waits less per batch', async () => {
    // Act: the rate rule alone (no ramp)
    const fast = await stream(300, 10, { windowGrowth: 1 });
    const slow = await stream(300, 50, { windowGrowth: 1 });

    // Assess
    const cadence = (at: number[]) => (at.at(-2)! - at[1]!) / (at.length - 3);
    expect(cadence(fast.sentAt)).toBeLessThan(cadence(slow.sentAt));
    expect(cadence(fast.sentAt)).toBeLessThanOrEqual(150);
    expect(cadence(slow.sentAt)).toBeLessThanOrEqual(DEFAULT_MAX_DELAY_MS + 50);
  });

  it('sends the first delta after an idle gap at once, and batches the burst after it', async () => {
    // Prepare: a stream at 50 tokens/s
    const { batcher, sent, sentAt, scheduler } = setup({
      firstDeltaAtOnce: undefined,
      maxDelayMs: undefined,
      minDelayMs: undefined,
    });
    await batcher.push(started);
    for (let i = 0; i < 40; i++) {
      await batcher.push(delta(`a${i} `));
      await scheduler.advance(20);
    }
    // The pause outlasts the idle gap and the window (a tool call, a slow step).
    await scheduler.advance(Math.max(DEFAULT_IDLE_GAP_MS, DEFAULT_MAX_DELAY_MS));
    const before = sent.length;

    // Act: the model resumes after a pause (a tool call, a slow step)
    const resumedAt = scheduler.now;
    await batcher.push(delta('back'));
    await batcher.push(delta(' again'));

    // Assess: the first delta after the gap left at once, the next waits for the window
    expect(sent).toHaveLength(before + 1);
    expect(sent.at(-1)?.events).toEqual([delta('back')]);
    expect(sentAt.at(-1)).toBe(resumedAt);
    await scheduler.advance(DEFAULT_MAX_DELAY_MS);
    expect(sent.at(-1)?.events).toEqual([delta(' again')]);
  });

  it('ramps the window within a burst: each window-sealed batch waits twice the one before, up to the ceiling; a pause starts it again', async () => {
    // Prepare: 50 tokens/s, so the rate alone asks for a 240 ms window
    const { sentAt, sent } = await stream(400, 20);
    // sentAt[0]: the first delta, at once; then the window-sealed batches.
    const cadence = sentAt.slice(1, 6).map((at, i) => at - (sentAt[i] as number));
    // Act: a second burst after a pause, on a fresh run with the same pace
    const run = setup({
      firstDeltaAtOnce: undefined,
      maxDelayMs: undefined,
      minDelayMs: undefined,
    });
    for (const burst of [0, 1]) {
      for (let i = 0; i < 60; i++) {
        await run.batcher.push(delta(`b${burst}.${i} `));
        await run.scheduler.advance(20);
      }
      await run.scheduler.advance(DEFAULT_MAX_DELAY_MS);
    }

    // Assess: 240, 480, then the ceiling; fewer than 1 message per 20 tokens over 400
    expect(cadence[0]).toBeGreaterThanOrEqual(200);
    expect(cadence[0]).toBeLessThanOrEqual(280);
    expect(cadence[1]).toBeGreaterThanOrEqual(440);
    expect(cadence[2]).toBeGreaterThanOrEqual(DEFAULT_MAX_DELAY_MS - 20);
    expect(
      Math.max(...sentAt.slice(1).map((at, i) => at - (sentAt[i] as number))),
    ).toBeLessThanOrEqual(DEFAULT_MAX_DELAY_MS + 20);
    expect(400 / sent.length).toBeGreaterThanOrEqual(15);
    // The second burst's first delta went at once and its next batch waited the short window.
    const second = run.sent.findIndex((m) =>
      m.events.some((e) => 'delta' in e && e.delta === 'b1.0 '),
    );
    expect(run.sent[second]?.events).toHaveLength(1);
    const gap = (run.sentAt[second + 1] as number) - (run.sentAt[second] as number);
    expect(gap).toBeLessThanOrEqual(280);
  });

  it('refuses a windowGrowth outside 1..16', () => {
    const sink = async () => undefined;
    for (const windowGrowth of [0, 0.5, 17, Number.NaN]) {
      expect(() => new EventBatcher({ sessionId, runId, sink, windowGrowth })).toThrow(
        InvalidBatcherOptions,
      );
    }
  });

  it('hands sinkMany every message ready while a send was in flight, in seq order', async () => {
    // Prepare: a sink that holds its first call
    const calls: EventsMessage[][] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batcher = new EventBatcher({
      sessionId,
      runId,
      scheduler: new ManualScheduler(),
      maxBytes: 1024,
      sinkMany: async (messages) => {
        calls.push(structuredClone(messages));
        if (calls.length === 1) await held;
      },
    });

    // Act: the first delta goes at once and is held; a big burst seals several messages behind it
    const first = batcher.push(delta('first'));
    await settle();
    // (A push that seals waits for the send in flight: not awaited until it is released.)
    const pushes: Promise<void>[] = [];
    for (let i = 0; i < 30; i++) pushes.push(batcher.push(delta(`${'x'.repeat(90)}${i}`)));
    pushes.push(batcher.push(finished));
    release();
    await Promise.all([first, ...pushes]);
    await batcher.close();

    // Assess: one call for the held one, then the rest in as few calls as were ready
    expect(calls[0]?.map((m) => m.seq)).toEqual([0]);
    expect(calls.length).toBeLessThanOrEqual(3);
    const seqs = calls.flat().map((m) => m.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    expect(calls.flat().at(-1)?.events).toEqual([finished]);
    expect(batcher.stats.messages).toBe(seqs.length);
  });

  it('keeps order, seqs, sizes and the terminal rule for any arrival pattern', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 600 }), fc.string({ maxLength: 300 })), {
          maxLength: 60,
        }),
        async (arrivals) => {
          const { batcher, sent, scheduler } = setup({
            firstDeltaAtOnce: undefined,
            maxDelayMs: undefined,
            minDelayMs: undefined,
            maxBytes: 1024,
          });
          const pushed: StreamEvent[] = [started];
          await batcher.push(started);
          for (const [wait, text] of arrivals) {
            await scheduler.advance(wait);
            pushed.push(delta(text));
            await batcher.push(delta(text));
          }
          await batcher.push(finished);
          pushed.push(finished);
          expect(sent.map((m) => m.seq)).toEqual(sent.map((_, i) => i));
          const text = (events: StreamEvent[]) =>
            events.map((e) => (e.type === 'text-delta' ? e.delta : `<${e.type}>`)).join('');
          expect(text(allEvents(sent))).toBe(text(pushed));
          expect(sent.at(-1)?.events).toEqual([finished]);
          for (const m of sent) expect(jsonBytes(m)).toBeLessThanOrEqual(1024);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses events of another run', async () => {
    // Prepare
    const { batcher } = setup();

    // Act
    const pushed = batcher.push({ ...delta('x'), runId: 'other' });

    // Assess
    await expect(pushed).rejects.toBeInstanceOf(ForeignEvent);
  });

  it('sends nothing for an empty flush and refuses events after close', async () => {
    // Prepare
    const { batcher, sent } = setup();

    // Act
    await batcher.flush();
    await batcher.close();
    await batcher.close();

    // Assess
    expect(sent).toEqual([]);
    await expect(batcher.push(delta('x'))).rejects.toBeInstanceOf(BatcherClosed);
  });

  it('continues from firstSeq', async () => {
    // Prepare
    const { batcher, sent } = setup({ firstSeq: 7 });

    // Act
    await batcher.push(finished);

    // Assess
    expect(sent[0]?.seq).toBe(7);
  });

  it.each([
    ['a tiny maxBytes', { maxBytes: 100 }],
    ['a negative firstSeq', { firstSeq: -1 }],
  ])('refuses %s', (_name, options) => {
    // Act
    const create = () => setup(options);

    // Assess
    expect(create).toThrow(InvalidBatcherOptions);
  });
});
