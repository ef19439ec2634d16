import type { ConnectionStore } from '../../app/ports/connections.js';
import type { Delivery, DeliveryMode } from '../../transport/delivery.js';
import { eventsFifoKeys } from '../../transport/fifo.js';
import type { EventsMessage, EventsQueueMessage } from '../../transport/protocol.js';
import type { FunctionLogger as Logger } from '../middleware/json-logger.js';
import { ConfigError } from '../wiring/errors.js';
import type { AwsClients } from './clients.js';
import { postToSession } from './post-to-session.js';
import { sendJson, sendJsonBatch } from './sqs-queues.js';

/** `sqs-fanout`: each batch goes on the events FIFO queue (group = session, dedup = run.seq). */
export class SqsFanoutDelivery implements Delivery {
  readonly mode = 'sqs-fanout';

  constructor(
    private readonly clients: Pick<AwsClients, 'sqs'>,
    private readonly queueUrl: string,
    private readonly to: Recipients = {},
  ) {}

  async deliver(message: EventsMessage): Promise<void> {
    const entry = this.#entry(message);
    await sendJson(this.clients.sqs, this.queueUrl, entry, eventsFifoKeys(entry));
  }

  /** Several batches in as few SendMessageBatch calls as SQS allows (10 entries, 256 KB). */
  async deliverMany(messages: readonly EventsMessage[]): Promise<void> {
    const entries = messages.map((message) => {
      const body = this.#entry(message);
      return { body, keys: eventsFifoKeys(body) };
    });
    await sendJsonBatch(this.clients.sqs, this.queueUrl, entries);
  }

  #entry(message: EventsMessage): EventsQueueMessage {
    return {
      message,
      ...(this.to.requester ? { connectionId: this.to.requester } : {}),
      ...(this.to.owner ? { owner: this.to.owner } : {}),
      sentAt: Date.now(),
    };
  }
}

/** `direct`: the worker posts each batch to the session's subscribers itself. */
export class DirectDelivery implements Delivery {
  readonly mode = 'direct';

  constructor(
    private readonly clients: Pick<AwsClients, 'management'>,
    private readonly connections: ConnectionStore,
    private readonly to: Recipients = {},
    private readonly logger?: Logger,
  ) {}

  deliver(message: EventsMessage): Promise<void> {
    return postToSession(this.clients, this.connections, message, {
      ...this.to,
      ...(this.logger ? { logger: this.logger } : {}),
    });
  }
}

/** Who a run's events go to: the owner's subscribed connections, and the requester's. */
export interface Recipients {
  /** The connection that asked for the run: posted to even when not subscribed. */
  requester?: string;
  /** The session's owner (the job's principal): no other principal's connection is posted to. */
  owner?: string;
}

export interface DeliveryTarget {
  mode: DeliveryMode;
  clients: AwsClients;
  connections: ConnectionStore;
  eventsQueueUrl?: string;
  requester?: string;
  owner?: string;
  logger?: Logger;
}

export function deliveryFor(target: DeliveryTarget): Delivery {
  const to: Recipients = {
    ...(target.requester ? { requester: target.requester } : {}),
    ...(target.owner ? { owner: target.owner } : {}),
  };
  if (target.mode === 'direct') {
    return new DirectDelivery(target.clients, target.connections, to, target.logger);
  }
  if (!target.eventsQueueUrl) {
    throw new ConfigError([
      { variable: 'EVENTS_QUEUE_URL', message: 'is required for sqs-fanout' },
    ]);
  }
  return new SqsFanoutDelivery(target.clients, target.eventsQueueUrl, to);
}
