import type { Binding } from '../../core/ownership.js';
import type { Delivery } from '../../transport/delivery.js';
import type { EventsMessage } from '../../transport/protocol.js';
import {
  firstSeqOf,
  lastSeqOf,
  type RunEventStore,
  type StoredMessage,
} from '../ports/run-events.js';

/** Messages after which an attempt sends nothing more: stored before they go out. */
const ENDS = new Set(['run-finished', 'run-paused', 'run-error', 'run-retrying']);

/**
 * One attempt's stored events, written behind delivery: a message goes out, then joins the
 * buffer; the buffer becomes one stored range when its oldest message is `flushMs` old (checked
 * at each message and by a timer, so a pause flushes too), and before a message that ends the
 * attempt goes out. Flushes run one at a time, each storing what was buffered when it started,
 * ranges chained by seq. A failed flush fails the next send: the attempt stops, its redelivery
 * closes the unstored seqs with a void marker.
 */
export class WriteBehind implements Delivery {
  readonly mode: Delivery['mode'];
  #buffer: EventsMessage[] = [];
  #since = 0;
  #next: number | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #failed: unknown;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly delivery: Delivery,
    private readonly events: RunEventStore,
    private readonly binding: Binding,
    private readonly flushMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.mode = delivery.mode;
  }

  async deliver(message: EventsMessage): Promise<void> {
    await this.#send([message], () => this.delivery.deliver(message));
  }

  async deliverMany(messages: readonly EventsMessage[]): Promise<void> {
    const many = this.delivery.deliverMany?.bind(this.delivery);
    await this.#send(messages, async () => {
      if (many) return many(messages);
      for (const m of messages) await this.delivery.deliver(m);
    });
  }

  /** Stores whatever is buffered (the attempt's end); rejects if a flush failed. */
  async flush(): Promise<void> {
    this.#clearTimer();
    const range = this.#buffer;
    this.#buffer = [];
    const run = this.#flushing.then(() => this.#store(range));
    this.#flushing = run.catch(() => undefined);
    await run;
    if (this.#failed !== undefined) throw this.#failed;
  }

  async #send(messages: readonly EventsMessage[], send: () => Promise<void>): Promise<void> {
    if (this.#failed !== undefined) throw this.#failed;
    const ending = messages.some((m) => m.events.some((e) => ENDS.has(e.type)));
    const gap = this.#gapBefore(messages[0] as EventsMessage);
    this.#next = lastSeqOf(messages[messages.length - 1] as EventsMessage) + 1;
    if (gap) await this.delivery.deliver(gap);
    if (ending) {
      this.#buffer.push(...(gap ? [gap] : []), ...messages);
      await this.flush();
      await send();
      return;
    }
    await send();
    if (this.#buffer.length === 0) this.#since = this.now();
    this.#buffer.push(...(gap ? [gap] : []), ...messages);
    if (this.now() - this.#since >= this.flushMs) await this.flush();
    else this.#arm();
  }

  /**
   * A message past the next seq (a terminal sent past every reserved seq): the seqs between were
   * reserved by this attempt and never sent, closed by a marker at the last of them (as a
   * redelivery's marker: `from…seq`).
   */
  #gapBefore(message: EventsMessage): EventsMessage | undefined {
    const next = this.#next;
    this.#next = lastSeqOf(message) + 1;
    const first = firstSeqOf(message);
    if (next === undefined || first <= next) return undefined;
    const seq = first - 1;
    const what = seq === next ? `Seq ${seq} was` : `Seqs ${next}…${seq} were`;
    const events = [
      {
        type: 'run-retrying' as const,
        runId: message.runId,
        code: 'events-void',
        message: `${what} reserved and never sent: void.`,
      },
    ];
    return { ...message, seq, ...(seq > next ? { from: next } : {}), events };
  }

  #arm(): void {
    if (this.#timer) return;
    const wait = Math.max(0, this.flushMs - (this.now() - this.#since));
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush().catch(() => undefined);
    }, wait);
    // A pending flush never keeps a process alive; the attempt's end flushes anyway.
    this.#timer.unref?.();
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #store(range: EventsMessage[]): Promise<void> {
    const first = range[0];
    if (first === undefined || this.#failed !== undefined) return;
    const { sessionId, runId } = first;
    try {
      const messages = range.map(({ seq, from, events }) => plain(seq, from, events));
      await this.events.append({ sessionId, runId, messages }, this.binding);
    } catch (err) {
      this.#failed = err;
      throw err;
    }
  }
}

function plain(
  seq: number,
  from: number | undefined,
  events: StoredMessage['events'],
): StoredMessage {
  return { seq, ...(from === undefined ? {} : { from }), events };
}
