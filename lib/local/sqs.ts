import type { Server } from 'node:http';
import {
  ChangeMessageVisibilityBatchCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { createSqsServer } from 'local-aws-sqs';
import type { LocalEndpoint } from './dynalite.js';

/** local-aws-sqs (the current SQS JSON protocol) on an ephemeral port of 127.0.0.1. */
export async function startLocalSqs(): Promise<LocalEndpoint> {
  const server: Server = await createSqsServer({
    port: 0,
    hostname: '127.0.0.1',
    // Tests create and drop queues freely; AWS's 60 s wait before re-creating one only slows them.
    emulateQueueCreationLifecycle: false,
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
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

export type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

export interface PollResult {
  /** Records handed to the handler. */
  received: number;
  /** Message ids the handler reported as failed (made visible again). */
  failed: string[];
}

/**
 * One poll with Lambda's event-source semantics: receive up to `batchSize` messages, hand them
 * to the handler as an SQS event (ordered by sequence number, as a FIFO queue delivers them),
 * delete the ones that succeeded and make the failed ones visible again for a retry. A handler
 * that throws fails the whole batch. Does not block a FIFO group while its failed message waits.
 */
export async function pollOnce(
  sqs: SQSClient,
  queueUrl: string,
  handler: SqsHandler,
  options: { batchSize?: number; waitSeconds?: number } = {},
): Promise<PollResult> {
  const received = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: options.batchSize ?? 10,
      WaitTimeSeconds: options.waitSeconds ?? 0,
      MessageSystemAttributeNames: ['All'],
      // local-aws-sqs reads only the older name: without it no MessageGroupId, SequenceNumber or
      // receive count reaches the handler, and the batch's FIFO rules go unexercised.
      AttributeNames: ['All'],
    }),
  );
  const messages = [...(received.Messages ?? [])].sort(bySequence);
  if (messages.length === 0) return { received: 0, failed: [] };
  const event: SQSEvent = { Records: messages.map((m) => toRecord(m, queueUrl)) };
  let failed: string[];
  try {
    const response = await handler(event);
    failed = (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
  } catch {
    failed = messages.map((m) => m.MessageId as string);
  }
  const done = messages.filter((m) => !failed.includes(m.MessageId as string));
  const retry = messages.filter((m) => failed.includes(m.MessageId as string));
  if (done.length > 0) {
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
      }),
    );
  }
  if (retry.length > 0) {
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: queueUrl,
        Entries: retry.map((m, i) => ({
          Id: String(i),
          ReceiptHandle: m.ReceiptHandle,
          VisibilityTimeout: 0,
        })),
      }),
    );
  }
  return { received: messages.length, failed };
}

/** Polls until a poll finds the queue empty; answers how many records were handled. */
export async function drain(
  sqs: SQSClient,
  queueUrl: string,
  handler: SqsHandler,
  options: { batchSize?: number; maxPolls?: number } = {},
): Promise<number> {
  let total = 0;
  for (let poll = 0; poll < (options.maxPolls ?? 50); poll++) {
    const result = await pollOnce(sqs, queueUrl, handler, options);
    if (result.received === 0) return total;
    total += result.received;
  }
  return total;
}

export interface Poller {
  /** Finishes the poll in progress (and its handler call), then stops. */
  stop(): Promise<void>;
}

/**
 * An event source mapping for the local stack: polls the queue over and over (long polls, so an
 * idle queue costs little) and hands each batch to the handler as `pollOnce` does. A poll that
 * fails (the endpoint is restarting) is logged and tried again after a pause.
 */
export function startPoller(
  sqs: SQSClient,
  queueUrl: string,
  handler: SqsHandler,
  options: { batchSize?: number; waitSeconds?: number; onError?: (err: unknown) => void } = {},
): Poller {
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        await pollOnce(sqs, queueUrl, handler, {
          batchSize: options.batchSize,
          waitSeconds: options.waitSeconds ?? 1,
        });
      } catch (err) {
        options.onError?.(err);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

function bySequence(a: Message, b: Message): number {
  const x = BigInt(a.Attributes?.SequenceNumber ?? a.Attributes?.SentTimestamp ?? '0');
  const y = BigInt(b.Attributes?.SequenceNumber ?? b.Attributes?.SentTimestamp ?? '0');
  return x < y ? -1 : x > y ? 1 : 0;
}

function toRecord(message: Message, queueUrl: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  const [, account = '', name = ''] = new URL(queueUrl).pathname.split('/');
  return {
    messageId: message.MessageId as string,
    receiptHandle: message.ReceiptHandle as string,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? '0',
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
      ...(attributes.SequenceNumber ? { SequenceNumber: attributes.SequenceNumber } : {}),
      ...(attributes.MessageDeduplicationId
        ? { MessageDeduplicationId: attributes.MessageDeduplicationId }
        : {}),
      // Lambda hands the sender's X-Ray header on as a system attribute (lib/tracing/propagation).
      ...(attributes.AWSTraceHeader ? { AWSTraceHeader: attributes.AWSTraceHeader } : {}),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:${account}:${name}`,
    awsRegion: 'us-east-1',
  };
}
