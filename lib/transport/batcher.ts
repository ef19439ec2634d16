import { type StreamEvent, TERMINAL_EVENT_TYPES } from '../core/events.js';
import { BatcherClosed, ForeignEvent, InvalidBatcherOptions } from './errors.js';
import type { EventsMessage } from './protocol.js';
import { isDeltaEvent, jsonBytes, splitDeltaEvent } from './sizing.js';

/** Below API Gateway's 128 KB frame and SQS's 256 KB message, with room for routing fields. */
export const DEFAULT_MAX_BATCH_BYTES = 120 * 1024;
/**
 * The adaptive window (docs/benchmarks.md#delivery): a burst's first batch waits about
 * `DEFAULT_TARGET_EVENTS` inter-delta intervals (~120 ms at 100 tok/s, ~240 ms at 50), each next
 * one `DEFAULT_WINDOW_GROWTH` times longer, up to the 600 ms ceiling: ≥ 10x fewer messages than
 * tokens at 20 tok/s. The ceiling is the cadence a long answer settles at (the bill's lever).
 */
export const DEFAULT_MAX_DELAY_MS = 600;
export const DEFAULT_MIN_DELAY_MS = 50;
export const DEFAULT_TARGET_EVENTS = 12;
/**
 * Each batch of a burst sealed by the window waits this many times longer than the one before
 * (up to the ceiling): the first words and the next few batches go quickly, a long answer the
 * reader is already reading goes in fewer, larger messages.
 */
export const DEFAULT_WINDOW_GROWTH = 2;
/** A delta this long after the previous one starts a new burst: it goes at once. */
export const DEFAULT_IDLE_GAP_MS = 250;
/** Weight of the newest interval in the rate estimate (an exponential moving average). */
const RATE_WEIGHT = 0.3;
/** Room the envelope keeps for any seq (up to 16 digits). */
const SEQ_DIGITS = 16;

/** The timer the batcher uses; tests pass a manual one. */
export interface Scheduler {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Milliseconds on a monotonic clock (default `performance.now()`). */
  time?(): number;
}

export const realScheduler: Scheduler = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  time: () => performance.now(),
};

export type EventsSink = (message: EventsMessage) => Promise<void>;
/** Takes every message sealed while the previous send was in flight, in seq order (≥ 1). */
export type EventsBatchSink = (messages: EventsMessage[]) => Promise<void>;

export interface EventBatcherOptions {
  sessionId: string;
  runId: string;
  /** Called once per message, in seq order, never while a previous call is pending. */
  sink?: EventsSink;
  /**
   * Instead of `sink`: called with every message ready at once (one `SendMessageBatch`), in seq
   * order, never while a previous call is pending.
   */
  sinkMany?: EventsBatchSink;
  /** Largest serialised `events` message in UTF-8 bytes (default 120 KB). */
  maxBytes?: number;
  /** Longest time an event waits in the buffer: the adaptive window's ceiling (default 600 ms). */
  maxDelayMs?: number;
  /** The adaptive window's floor (default 50 ms, or `maxDelayMs` if smaller). */
  minDelayMs?: number;
  /** Deltas a batch should hold at the measured rate (default 12): the window grows with it. */
  targetEvents?: number;
  /** A delta this long after the previous delta goes at once (default 250 ms). */
  idleGapMs?: number;
  /** Each window-sealed batch of a burst waits this many times the one before (default 2; 1: no ramp). */
  windowGrowth?: number;
  /**
   * Seal at once a message's first text delta and the first delta after an idle gap (default
   * true): the first words never wait for the window; the rest is batched.
   */
  firstDeltaAtOnce?: boolean;
  /** Seq of the first message: a resumed run continues where its paused part stopped. */
  firstSeq?: number;
  scheduler?: Scheduler;
}

export interface BatcherStats {
  /** Messages the sink accepted. */
  messages: number;
  /** Events in those messages (a split delta counts once per piece). */
  events: number;
  /** Serialised bytes of those messages. */
  bytes: number;
  /** Events larger than the limit that could not be split and went alone. */
  oversized: number;
}

interface Sealed {
  message: EventsMessage;
  bytes: number;
}

/**
 * Buffers one run's events into `events` messages. A message is sealed when the next event
 * would take it past `maxBytes`; before and after a terminal event (run-paused, run-finished,
 * run-error), which goes alone; when the window passed since its first event; with the first
 * text delta of each assistant message and the first delta after an idle gap (so the first
 * words go out at once); or on `flush`/`close`. The window adapts: about `targetEvents`
 * intervals of the measured delta rate, between `minDelayMs` and `maxDelayMs`. Sealed messages
 * go to the sink one send at a time (all that are ready with `sinkMany`); a sink failure stops
 * the batcher and is thrown by the next `push`, `flush` or `close` (and by the call that was
 * waiting for that send).
 */
export class EventBatcher {
  readonly sessionId: string;
  readonly runId: string;
  readonly #sink: EventsBatchSink;
  readonly #sinkTakesMany: boolean;
  readonly #maxBytes: number;
  readonly #maxDelayMs: number;
  readonly #minDelayMs: number;
  readonly #targetEvents: number;
  readonly #idleGapMs: number;
  readonly #growth: number;
  /** Batches the window sealed since the burst began (an idle gap or a message's first delta). */
  #ramp = 0;
  readonly #time: () => number;
  /** When the last delta was pushed, and the moving average of the intervals between deltas. */
  #lastDeltaAt: number | undefined;
  #interval: number | undefined;
  readonly #scheduler: Scheduler;
  readonly #firstDeltaAtOnce: boolean;
  /** Assistant messages whose first text delta was pushed. */
  readonly #started = new Set<string>();
  /** Bytes of the message without its seq digits and events. */
  readonly #envelopeBytes: number;
  /** Bytes left for the events (and their commas) in a message with any seq. */
  readonly #room: number;
  #seq: number;
  #buffer: StreamEvent[] = [];
  /** Serialised bytes of the buffered events and the commas between them. */
  #bufferBytes = 0;
  #sealed: Sealed[] = [];
  #timer: { handle: unknown } | undefined;
  /** The delay ran out while a send was in progress: seal the buffer when the sink is free. */
  #due = false;
  #pump: Promise<void> | undefined;
  #failure: { error: unknown } | undefined;
  #state: 'open' | 'ended' | 'closed' = 'open';
  readonly #stats: BatcherStats = { messages: 0, events: 0, bytes: 0, oversized: 0 };

  constructor(options: EventBatcherOptions) {
    this.sessionId = options.sessionId;
    this.runId = options.runId;
    this.#sink = sinkOf(options);
    this.#sinkTakesMany = options.sinkMany !== undefined;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BATCH_BYTES;
    this.#maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    this.#minDelayMs = Math.min(options.minDelayMs ?? DEFAULT_MIN_DELAY_MS, this.#maxDelayMs);
    this.#targetEvents = options.targetEvents ?? DEFAULT_TARGET_EVENTS;
    this.#idleGapMs = options.idleGapMs ?? DEFAULT_IDLE_GAP_MS;
    this.#growth = options.windowGrowth ?? DEFAULT_WINDOW_GROWTH;
    this.#scheduler = options.scheduler ?? realScheduler;
    const scheduler = this.#scheduler;
    this.#time = scheduler.time ? () => scheduler.time?.() ?? 0 : () => performance.now();
    this.#firstDeltaAtOnce = options.firstDeltaAtOnce ?? true;
    this.#seq = options.firstSeq ?? 0;
    const empty = { type: 'events', sessionId: this.sessionId, runId: this.runId, seq: 0 };
    this.#envelopeBytes = jsonBytes({ ...empty, events: [] }) - 1;
    this.#room = this.#maxBytes - this.#envelopeBytes - SEQ_DIGITS;
    if (this.#room < 256) {
      throw new InvalidBatcherOptions(`maxBytes ${this.#maxBytes} leaves no room for events.`);
    }
    if (!(this.#growth >= 1 && this.#growth <= 16)) {
      throw new InvalidBatcherOptions('windowGrowth must be between 1 and 16.');
    }
    if (!Number.isSafeInteger(this.#seq) || this.#seq < 0) {
      throw new InvalidBatcherOptions(`firstSeq must be a non-negative integer.`);
    }
  }

  get stats(): BatcherStats {
    return { ...this.#stats };
  }

  /** Seq the next sealed message will get (persist it with a paused run to continue later). */
  get nextSeq(): number {
    return this.#seq;
  }

  /** Buffers an event; resolves once the messages it sealed (if any) were sent. */
  async push(event: StreamEvent): Promise<void> {
    this.#throwIfFailed();
    if (this.#state !== 'open')
      throw new BatcherClosed(this.runId, this.#state === 'closed' ? 'closed' : 'run-ended');
    if (event.runId !== this.runId) throw new ForeignEvent(this.runId, event.runId);
    const terminal = TERMINAL_EVENT_TYPES.has(event.type);
    // The terminal rule (docs/protocol.md): the terminal event travels alone.
    if (terminal) this.#seal();
    const idle = isDeltaEvent(event) && this.#afterIdleGap();
    // A new burst starts the ramp again.
    if (idle) this.#ramp = 0;
    const bytes = jsonBytes(event);
    if (bytes > this.#room && isDeltaEvent(event)) {
      for (const piece of splitDeltaEvent(event, this.#room)) this.#add(piece, jsonBytes(piece));
    } else {
      this.#add(event, bytes);
    }
    if (terminal) {
      this.#state = 'ended';
      this.#seal();
    } else if (this.#isFirstDelta(event) || (idle && this.#firstDeltaAtOnce)) {
      this.#ramp = 0;
      this.#seal();
    } else if (this.#buffer.length > 0 && this.#timer === undefined) {
      this.#startTimer();
    }
    if (this.#sealed.length > 0) await this.#kick();
  }

  /** Sends whatever is buffered now and waits for every pending send. */
  async flush(): Promise<void> {
    this.#throwIfFailed();
    this.#seal();
    await this.#kick();
  }

  /** Flushes and refuses further events. Calling it again only waits for the sends. */
  async close(): Promise<void> {
    if (this.#state !== 'closed') {
      this.#state = 'closed';
      this.#seal();
    }
    this.#throwIfFailed();
    await this.#kick();
  }

  /** Stamps a delta; true if it follows an idle gap (or is the first). Feeds the rate. */
  #afterIdleGap(): boolean {
    const now = this.#time();
    const last = this.#lastDeltaAt;
    this.#lastDeltaAt = now;
    if (last === undefined || now - last >= this.#idleGapMs) return true;
    const gap = now - last;
    this.#interval =
      this.#interval === undefined ? gap : this.#interval + RATE_WEIGHT * (gap - this.#interval);
    return false;
  }

  /**
   * The window for the batch starting now: grows with the rate and, within a burst, with each
   * batch the window sealed (`windowGrowth`), between floor and ceiling.
   */
  #window(): number {
    const ramp = this.#growth ** Math.min(this.#ramp, 16);
    const wanted = (this.#interval ?? 0) * this.#targetEvents * ramp;
    return Math.min(this.#maxDelayMs, Math.max(this.#minDelayMs * ramp, wanted));
  }

  #isFirstDelta(event: StreamEvent): boolean {
    if (!this.#firstDeltaAtOnce || event.type !== 'text-delta') return false;
    if (this.#started.has(event.messageId)) return false;
    this.#started.add(event.messageId);
    return true;
  }

  #add(event: StreamEvent, bytes: number): void {
    const room = this.#room;
    if (this.#buffer.length > 0 && this.#bufferBytes + 1 + bytes > room) this.#seal();
    this.#bufferBytes += (this.#buffer.length > 0 ? 1 : 0) + bytes;
    this.#buffer.push(event);
    if (bytes > room) {
      // Not splittable (or not enough): it goes alone, and delivery decides what to do with it.
      this.#stats.oversized += 1;
      this.#seal();
    }
  }

  #seal(): void {
    this.#stopTimer();
    this.#due = false;
    if (this.#buffer.length === 0) return;
    const seq = this.#seq++;
    const message: EventsMessage = {
      type: 'events',
      sessionId: this.sessionId,
      runId: this.runId,
      seq,
      events: this.#buffer,
    };
    this.#sealed.push({
      message,
      bytes: this.#envelopeBytes + String(seq).length + this.#bufferBytes,
    });
    this.#buffer = [];
    this.#bufferBytes = 0;
  }

  #startTimer(): void {
    const timer = { handle: undefined as unknown };
    this.#timer = timer;
    timer.handle = this.#scheduler.setTimeout(() => {
      if (this.#timer !== timer) return;
      this.#timer = undefined;
      this.#due = true;
      this.#ramp += 1;
      // The failure is kept and thrown by the next call; nobody awaits a timer.
      this.#kick().catch(() => {});
    }, this.#window());
  }

  #stopTimer(): void {
    if (this.#timer === undefined) return;
    this.#scheduler.clearTimeout(this.#timer.handle);
    this.#timer = undefined;
  }

  #kick(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure.error);
    // Started a microtask later so #pump is set before the loop can finish and clear it.
    this.#pump ??= Promise.resolve().then(() => this.#drain());
    return this.#pump;
  }

  async #drain(): Promise<void> {
    try {
      for (;;) {
        if (this.#sealed.length === 0 && this.#due) this.#seal();
        // `sink` takes one message per call, `sinkMany` all that are ready.
        const ready = this.#sealed.splice(0, this.#sinkTakesMany ? this.#sealed.length : 1);
        if (ready.length === 0) return;
        await this.#sink(ready.map((s) => s.message));
        for (const next of ready) {
          this.#stats.messages += 1;
          this.#stats.events += next.message.events.length;
          this.#stats.bytes += next.bytes;
        }
      }
    } catch (error) {
      this.#failure ??= { error };
      this.#sealed = [];
      this.#buffer = [];
      this.#bufferBytes = 0;
      this.#stopTimer();
      throw error;
    } finally {
      this.#pump = undefined;
    }
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure.error;
  }
}

/** One send of the ready messages: `sinkMany` as is, or `sink` once per message in order. */
function sinkOf(options: EventBatcherOptions): EventsBatchSink {
  const { sink, sinkMany } = options;
  if (sinkMany) return sinkMany;
  if (!sink) throw new InvalidBatcherOptions('a sink or sinkMany is required.');
  return async (messages) => {
    for (const message of messages) await sink(message);
  };
}
