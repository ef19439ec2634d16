import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import type { LocalEndpoint } from './dynalite.js';

/** Told the name of a queue a message was just sent to (visible to a receive from now on). */
export type SendListener = (queueName: string) => void;

export interface LocalSqs extends LocalEndpoint {
  /** Listens for sends (SendMessage, SendMessageBatch) to any queue; answers the unsubscribe. */
  onSend(listener: SendListener): () => void;
}

/**
 * local-aws-sqs (the current SQS JSON protocol) on an ephemeral port of 127.0.0.1. It tells
 * `onSend` listeners of every send, so the local pollers wake as Lambda's event source mapping
 * does, instead of waiting out a poll.
 */
export async function startLocalSqs(): Promise<LocalSqs> {
  const server: Server = await createSqsServer({
    port: 0,
    hostname: '127.0.0.1',
    // Tests create and drop queues freely; AWS's 60 s wait before re-creating one only slows them.
    emulateQueueCreationLifecycle: false,
  });
  const listeners = new Set<SendListener>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const action = String(req.headers['x-amz-target'] ?? '').split('.')[1];
    if (action !== 'SendMessage' && action !== 'SendMessageBatch') return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('finish', () => {
      if (res.statusCode !== 200 || listeners.size === 0) return;
      const { name, count } = sentTo(Buffer.concat(chunks).toString('utf8'));
      // The emulator makes a new message receivable on a 0 ms timer: tell after it ran, once per
      // message (a batch's pollers then ask for all of them).
      if (name)
        setTimeout(() => {
          for (let i = 0; i < count; i++) notify(listeners, name);
        }, 0);
    });
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    onSend: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sentTo(body: string): { name?: string; count: number } {
  try {
    const input = JSON.parse(body) as { QueueUrl?: unknown; Entries?: unknown };
    const url = input.QueueUrl;
    const count = Array.isArray(input.Entries) ? input.Entries.length : 1;
    return typeof url === 'string' ? { name: url.split('/').at(-1) as string, count } : { count };
  } catch {
    return { count: 0 };
  }
}

function notify(listeners: Set<SendListener>, name: string): void {
  for (const listener of listeners) listener(name);
}

/** The real SQS client pointed at a local endpoint (any credentials sign). */
export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

export interface QueueOptions {
  fifo?: boolean;
  /** A dead-letter queue is created with it, receiving a message after this many receives. */
  maxReceiveCount?: number;
}

/** Creates a queue (and its DLQ when asked); answers their URLs. */
export async function createQueue(
  sqs: SQSClient,
  name: string,
  options: QueueOptions = {},
): Promise<{ url: string; dlqUrl?: string }> {
  const suffix = options.fifo ? '.fifo' : '';
  const fifo: Record<string, string> = options.fifo ? { FifoQueue: 'true' } : {};
  let dlqUrl: string | undefined;
  const attributes: Record<string, string> = { ...fifo, VisibilityTimeout: '30' };
  if (options.maxReceiveCount !== undefined) {
    const dlq = await sqs.send(
      new CreateQueueCommand({ QueueName: `${name}-dlq${suffix}`, Attributes: fifo }),
    );
    dlqUrl = dlq.QueueUrl;
    const arn = `arn:aws:sqs:us-east-1:123456789012:${name}-dlq${suffix}`;
    attributes.RedrivePolicy = JSON.stringify({
      deadLetterTargetArn: arn,
      maxReceiveCount: options.maxReceiveCount,
    });
  }
  const queue = await sqs.send(
    new CreateQueueCommand({ QueueName: `${name}${suffix}`, Attributes: attributes }),
  );
  return { url: queue.QueueUrl as string, ...(dlqUrl ? { dlqUrl } : {}) };
}

export { type Poller, startPoller, type Wake } from './event-source.js';
export {
  drain,
  newPollState,
  type PollResult,
  type PollState,
  pollOnce,
  type RetryDelay,
  release,
  type SqsHandler,
} from './sqs-poller.js';
