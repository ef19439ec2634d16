import type { Logger } from '@aws-lambda-powertools/logger';
import type { ConnectionStore } from '../core/stores.js';
import type { Delivery, DeliveryMode } from '../transport/delivery.js';
import { eventsFifoKeys } from '../transport/fifo.js';
import type { EventsMessage, EventsQueueMessage } from '../transport/protocol.js';
import type { AwsClients } from './clients.js';
import { ConfigError } from './errors.js';
import { postToSession } from './post.js';
import { sendJson } from './queues.js';

/** `sqs-fanout`: each batch goes on the events FIFO queue (group = session, dedup = run.seq). */
export class SqsFanoutDelivery implements Delivery {
  readonly mode = 'sqs-fanout';

  constructor(
    private readonly clients: Pick<AwsClients, 'sqs'>,
    private readonly queueUrl: string,
    private readonly requester?: string,
  ) {}

  async deliver(message: EventsMessage): Promise<void> {
    const entry: EventsQueueMessage = {
      message,
      ...(this.requester ? { connectionId: this.requester } : {}),
      sentAt: Date.now(),
    };
    await sendJson(this.clients.sqs, this.queueUrl, entry, eventsFifoKeys(entry));
  }
}

/** `direct`: the worker posts each batch to the session's subscribers itself. */
export class DirectDelivery implements Delivery {
  readonly mode = 'direct';

  constructor(
    private readonly clients: Pick<AwsClients, 'management'>,
    private readonly connections: ConnectionStore,
    private readonly requester?: string,
    private readonly logger?: Logger,
  ) {}

  deliver(message: EventsMessage): Promise<void> {
    return postToSession(this.clients, this.connections, message, this.requester, this.logger);
  }
}

export interface DeliveryTarget {
  mode: DeliveryMode;
  clients: AwsClients;
  connections: ConnectionStore;
  eventsQueueUrl?: string;
  requester?: string;
  logger?: Logger;
}

export function deliveryFor(target: DeliveryTarget): Delivery {
  if (target.mode === 'direct') {
    return new DirectDelivery(target.clients, target.connections, target.requester, target.logger);
  }
  if (!target.eventsQueueUrl) {
    throw new ConfigError([
      { variable: 'EVENTS_QUEUE_URL', message: 'is required for sqs-fanout' },
    ]);
  }
  return new SqsFanoutDelivery(target.clients, target.eventsQueueUrl, target.requester);
}
