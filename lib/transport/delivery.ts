import type { StreamEvent } from '../core/events.js';
import type { EventsMessage } from './protocol.js';

/**
 * How a worker's event batches reach clients. `sqs-fanout` puts them on the events queue for the
 * fan-out function; `direct` posts them to the subscribed connections itself. Both come later;
 * the batcher's sink is `(message) => delivery.deliver(message)` either way.
 */
export type DeliveryMode = 'sqs-fanout' | 'direct';

export interface Delivery {
  readonly mode: DeliveryMode | 'memory';
  /** Resolves once the message is handed over; rejects if it could not be. */
  deliver(message: EventsMessage): Promise<void>;
  /**
   * Hands over several messages of one run, in seq order, in as few calls as the channel allows
   * (sqs-fanout: SendMessageBatch). Resolves once all are handed over; rejects if one could not
   * be (the caller sends them again: receivers drop a seen `(runId, seq)`).
   */
  deliverMany?(messages: readonly EventsMessage[]): Promise<void>;
}

/**
 * The one place a worker's sealed batches leave it: `deliverMany` where the delivery has it,
 * else `deliver` per message in order.
 */
export async function emitBatches(
  delivery: Delivery,
  messages: readonly EventsMessage[],
): Promise<void> {
  if (messages.length > 1 && delivery.deliverMany) return delivery.deliverMany(messages);
  for (const message of messages) await delivery.deliver(message);
}

export interface MemoryDeliveryOptions {
  /** Returns the error to fail a delivery with, e.g. to test a broken queue. */
  fail?: (message: EventsMessage) => Error | undefined;
}

/** Keeps every delivered message (a copy, as a queue would) for tests and the local stack. */
export class MemoryDelivery implements Delivery {
  readonly mode = 'memory';
  readonly delivered: EventsMessage[] = [];
  readonly #fail: MemoryDeliveryOptions['fail'];

  constructor(options: MemoryDeliveryOptions = {}) {
    this.#fail = options.fail;
  }

  async deliver(message: EventsMessage): Promise<void> {
    const error = this.#fail?.(message);
    if (error) throw error;
    this.delivered.push(structuredClone(message));
  }

  /** The events of one run in seq order, or of every run in delivery order. */
  events(runId?: string): StreamEvent[] {
    const messages =
      runId === undefined
        ? this.delivered
        : this.delivered.filter((m) => m.runId === runId).sort((a, b) => a.seq - b.seq);
    return messages.flatMap((m) => m.events);
  }
}
