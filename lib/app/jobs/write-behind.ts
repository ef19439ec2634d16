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
 * attempt goes out. Flushes run one at a time, storing ranges in seq order, each exactly as first
 * taken: a range whose write failed (throttled past the SDK's retries) is tried again, as the
 * same range (a write that had landed is then the store's no-op), before the next send. Only a
 * failure of that retry fails the send: before the save the attempt stops and its redelivery
 * closes the unstored seqs with a void marker; past it the send is retried in place, store first,
 * so the terminal is never sent unstored nor left unsent by one throttled write.
 */
export class WriteBehind implements Delivery {
  readonly mode: Delivery['mode'];
  #buffer: EventsMessage[] = [];
  /** Ranges taken from the buffer and not yet stored, oldest first. */
  #unstored: EventsMessage[][] = [];
  #since = 0;
  /** The last seq kept (buffered, unstored or stored): a retried send keeps nothing twice. */
  #through: number | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #failed = false;
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

  /** Stores whatever is buffered or left unstored (the attempt's end); rejects if a write fails. */
  async flush(): Promise<void> {
    this.#clearTimer();
    if (this.#buffer.length > 0) this.#unstored.push(this.#buffer);
    this.#buffer = [];
    const run = this.#flushing.then(() => this.#storeAll());
    this.#flushing = run.catch(() => undefined);
    await run;
  }

  async #send(messages: readonly EventsMessage[], send: () => Promise<void>): Promise<void> {
    if (this.#failed) await this.flush();
    const ending = messages.some((m) => m.events.some((e) => ENDS.has(e.type)));
    const gap = this.#gapBefore(messages[0] as EventsMessage);
    if (gap) {
      await this.delivery.deliver(gap);
      this.#keep([gap]);
    }
    if (ending) {
      this.#keep(messages);
      await this.flush();
      await send();
      return;
    }
    await send();
    this.#keep(messages);
    // Sent is sent: a failed write here is retried before the next send, not reported twice.
    if (this.now() - this.#since >= this.flushMs) await this.flush().catch(() => undefined);
    else this.#arm();
  }

  /** Buffers the messages not kept yet (a send retried after its store or delivery failed). */
  #keep(messages: readonly EventsMessage[]): void {
    const through = this.#through ?? -1;
    const fresh = messages.filter((m) => firstSeqOf(m) > through);
    const last = fresh.at(-1);
    if (last === undefined) return;
    if (this.#buffer.length === 0) this.#since = this.now();
    this.#buffer.push(...fresh);
    this.#through = lastSeqOf(last);
  }

  /**
   * A message past the next seq (a terminal sent past every reserved seq): the seqs between were
   * reserved by this attempt and never sent, closed by a marker at the last of them (as a
   * redelivery's marker: `from…seq`).
   */
  #gapBefore(message: EventsMessage): EventsMessage | undefined {
    if (this.#through === undefined) return undefined;
    const next = this.#through + 1;
    const first = firstSeqOf(message);
    if (first <= next) return undefined;
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

  async #storeAll(): Promise<void> {
    try {
      for (let range = this.#unstored[0]; range; range = this.#unstored[0]) {
        await this.#store(range);
        this.#unstored.shift();
      }
      this.#failed = false;
    } catch (err) {
      this.#failed = true;
      throw err;
    }
  }

  async #store(range: EventsMessage[]): Promise<void> {
    const { sessionId, runId } = range[0] as EventsMessage;
    const messages = range.map(({ seq, from, events }) => plain(seq, from, events));
    await this.events.append({ sessionId, runId, messages }, this.binding);
  }
}

function plain(
  seq: number,
  from: number | undefined,
  events: StoredMessage['events'],
): StoredMessage {
  return { seq, ...(from === undefined ? {} : { from }), events };
}
