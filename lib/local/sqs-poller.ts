import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/*
 * The local stack's event source mappings: Lambda's SQS semantics (batch size, partial batch
 * failures, FIFO group order, redrive to the DLQ) on top of local-aws-sqs.
 */
export type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

export interface PollResult {
  /** Records handed to the handler. */
  received: number;
  /** Messages the poll's ReceiveMessage returned (some may be held back behind failed ones). */
  fetched: number;
  /** Message ids the handler reported as failed (kept for a retry, or dead-lettered). */
  failed: string[];
  /** Message ids moved to the dead-letter queue: they failed their last allowed receive. */
  deadLettered: string[];
}

/** A received message the poller has not deleted yet. */
interface Pending {
  message: Message;
  /** Arrival order. local-aws-sqs hands messages out in send order, but its sequence numbers
   * lose a digit at the 10th message of a group, so they cannot be compared. */
  order: number;
  /** Receives so far, as the record's ApproximateReceiveCount shows them. */
  receives: number;
  /** Handed to the handler since it was (last) received. */
  handed: boolean;
  /** Its last hand-out failed: it waits for its retry, and its group behind it. */
  failed: boolean;
  /** Epoch ms before which a failed message is not handed out again (its backoff). */
  retryAt: number;
}

/**
 * How long a failed message waits before its next hand-out, by its receives so far: the
 * visibility a Lambda handler sets on failure (lib/aws/handlers/worker.ts backs off with
 * `retryDelaySeconds`). Default: none, the next poll hands it out again.
 */
export type RetryDelay = (receives: number) => number;

/**
 * What a poller keeps between polls. SQS hands out no further message of a FIFO group while one
 * of its messages is in flight; local-aws-sqs knows no groups (and counts a visibility change as
 * a receive, which would dead-letter a message before its configured receives). So the poller
 * keeps failed messages itself, and with them the later messages of their groups, and redrives
 * to the dead-letter queue on its own count.
 */
export interface PollState {
  readonly pending: Map<string, Pending>;
  arrivals: number;
  /** The queue's redrive policy: undefined until read, null when it has none. */
  redrive?: { maxReceiveCount: number; dlqUrl: string } | null;
}

export function newPollState(): PollState {
  return { pending: new Map(), arrivals: 0 };
}

/** Received messages held back behind failed ones, at most (then the poller stops receiving). */
const MAX_HELD = 1000;

/**
 * One poll with Lambda's event-source semantics: receive up to `batchSize` messages, hand them
 * to the handler as an SQS event (in the order the queue delivered them: a FIFO queue's send
 * order), delete the ones that succeeded. A handler that throws fails the whole batch.
 *
 * A failed message is retried, and FIFO group order holds: with a `state` kept from poll to poll
 * (as `startPoller` and `drain` do), a failed message stays with the poller and is handed again
 * at the next poll, alone of its group; the group's later messages are held until it succeeds or,
 * after the redrive policy's maxReceiveCount receives, is moved to the dead-letter queue. Other
 * groups go on meanwhile. Without a state, failed messages are made visible again at once.
 */
export async function pollOnce(
  sqs: SQSClient,
  queueUrl: string,
  handler: SqsHandler,
  options: {
    batchSize?: number;
    waitSeconds?: number;
    /** At most this many messages in the receive (default: the batch's room, up to 10). */
    receiveMax?: number;
    state?: PollState;
    retryDelayMs?: RetryDelay;
  } = {},
): Promise<PollResult> {
  const state = options.state ?? newPollState();
  const batchSize = options.batchSize ?? 10;
  const waiting = handOut(state, batchSize).length;
  const room = Math.min(10, batchSize - waiting, options.receiveMax ?? 10);
  let fetched = 0;
  if (room > 0 && state.pending.size < MAX_HELD) {
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: room,
        // Messages waiting for their retry are handed out now, not after a long poll.
        WaitTimeSeconds: waiting > 0 ? 0 : (options.waitSeconds ?? 0),
        MessageSystemAttributeNames: ['All'],
        // local-aws-sqs reads only the older name: without it no MessageGroupId, SequenceNumber or
        // receive count reaches the handler, and the batch's FIFO rules go unexercised.
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    fetched = received.Messages?.length ?? 0;
    for (const message of received.Messages ?? []) remember(state, message);
  }
  const batch = handOut(state, batchSize);
  if (batch.length === 0) return { received: 0, fetched, failed: [], deadLettered: [] };
  for (const entry of batch) {
    if (entry.handed) entry.receives++;
    entry.handed = true;
  }
  const event: SQSEvent = { Records: batch.map((e) => toRecord(e, queueUrl)) };
  let failed: string[];
  try {
    const response = await handler(event);
    failed = (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
  } catch {
    failed = batch.map((e) => idOf(e.message));
  }
  const done = batch.filter((e) => !failed.includes(idOf(e.message)));
  const retry = batch.filter((e) => failed.includes(idOf(e.message)));
  if (done.length > 0) {
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: done.map((e, i) => ({ Id: String(i), ReceiptHandle: e.message.ReceiptHandle })),
      }),
    );
  }
  for (const entry of done) state.pending.delete(idOf(entry.message));
  const deadLettered: string[] = [];
  for (const entry of retry) {
    entry.failed = true;
    entry.retryAt = Date.now() + (options.retryDelayMs?.(entry.receives) ?? 0);
    state.redrive ??= await redrivePolicy(sqs, queueUrl);
    if (state.redrive && entry.receives >= state.redrive.maxReceiveCount) {
      await moveToDeadLetterQueue(sqs, queueUrl, state.redrive.dlqUrl, entry.message);
      state.pending.delete(idOf(entry.message));
      deadLettered.push(idOf(entry.message));
    }
  }
  if (!options.state) await release(sqs, queueUrl, state);
  return {
    received: batch.length,
    fetched,
    failed: retry.map((e) => idOf(e.message)),
    deadLettered,
  };
}

/**
 * Gives every message the poller still holds back to the queue (visible again at once), e.g.
 * when it stops. local-aws-sqs counts this as a receive.
 */
export async function release(sqs: SQSClient, queueUrl: string, state: PollState): Promise<void> {
  const held = [...state.pending.values()];
  state.pending.clear();
  for (let i = 0; i < held.length; i += 10) {
    await sqs
      .send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: held.slice(i, i + 10).map((e, j) => ({
            Id: String(j),
            ReceiptHandle: e.message.ReceiptHandle,
            VisibilityTimeout: 0,
          })),
        }),
      )
      // A message whose visibility ran out meanwhile is visible already.
      .catch(() => undefined);
  }
}

/** The next batch: in arrival order, but of a group whose first message failed, only that one. */
function handOut(state: PollState, batchSize: number, now = Date.now()): Pending[] {
  const entries = [...state.pending.values()].sort((a, b) => a.order - b.order);
  const blocked = new Set<string>();
  const seen = new Set<string>();
  const batch: Pending[] = [];
  for (const entry of entries) {
    const group = groupOf(entry.message);
    const first = !seen.has(group);
    seen.add(group);
    if (blocked.has(group)) continue;
    if (entry.failed) {
      // A failed message is retried alone, once its backoff passed; the rest of its group waits.
      blocked.add(group);
      if (!first || entry.retryAt > now) continue;
    }
    batch.push(entry);
    if (batch.length === batchSize) break;
  }
  return batch;
}

function remember(state: PollState, message: Message): void {
  const id = idOf(message);
  const known = state.pending.get(id);
  if (known) {
    // Its visibility ran out while held and it came again: only the new receipt handle is valid.
    known.message = message;
    return;
  }
  const receives = Number(message.Attributes?.ApproximateReceiveCount ?? '1');
  state.pending.set(id, {
    message,
    order: state.arrivals++,
    receives,
    handed: false,
    failed: false,
    retryAt: 0,
  });
}

/** A FIFO message's group; on a standard queue each message is a group of its own. */
function groupOf(message: Message): string {
  const group = message.Attributes?.MessageGroupId;
  return group === undefined ? `message:${idOf(message)}` : `group:${group}`;
}

function idOf(message: Message): string {
  return message.MessageId as string;
}

async function redrivePolicy(sqs: SQSClient, queueUrl: string): Promise<PollState['redrive']> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }),
  );
  if (!Attributes?.RedrivePolicy) return null;
  const policy = JSON.parse(Attributes.RedrivePolicy) as {
    deadLetterTargetArn: string;
    maxReceiveCount: number | string;
  };
  const name = policy.deadLetterTargetArn.split(':').at(-1) as string;
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
  return { maxReceiveCount: Number(policy.maxReceiveCount), dlqUrl: QueueUrl as string };
}

/** What SQS redrive does: the message, its attributes and group, onto the DLQ; off the queue. */
async function moveToDeadLetterQueue(
  sqs: SQSClient,
  queueUrl: string,
  dlqUrl: string,
  message: Message,
): Promise<void> {
  const attributes = message.Attributes ?? {};
  const header = attributes.AWSTraceHeader;
  const trace = header ? { DataType: 'String', StringValue: header } : undefined;
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: dlqUrl,
      MessageBody: message.Body ?? '',
      ...(message.MessageAttributes ? { MessageAttributes: message.MessageAttributes } : {}),
      ...(attributes.MessageGroupId
        ? {
            MessageGroupId: attributes.MessageGroupId,
            MessageDeduplicationId: attributes.MessageDeduplicationId ?? idOf(message),
          }
        : {}),
      ...(trace ? { MessageSystemAttributes: { AWSTraceHeader: trace } } : {}),
    }),
  );
  try {
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
    );
  } catch (err) {
    // A slow handler outlived the visibility timeout: the message comes back and is moved
    // again (deduplicated on a FIFO dead-letter queue), as SQS's own redrive would.
    if (!/receipt handle has expired/i.test(String((err as Error).message))) throw err;
  }
}

/** Polls until a poll finds the queue empty; answers how many records were handled. */
export async function drain(
  sqs: SQSClient,
  queueUrl: string,
  handler: SqsHandler,
  options: { batchSize?: number; maxPolls?: number; retryDelayMs?: RetryDelay } = {},
): Promise<number> {
  const state = newPollState();
  let total = 0;
  try {
    for (let poll = 0; poll < (options.maxPolls ?? 50); poll++) {
      const result = await pollOnce(sqs, queueUrl, handler, { ...options, state });
      if (result.received === 0) {
        // Empty but for failed messages in their backoff: wait for the first one.
        const next = Math.min(...[...state.pending.values()].map((e) => e.retryAt));
        if (!Number.isFinite(next) || next <= 0) return total;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
        continue;
      }
      total += result.received;
    }
    return total;
  } finally {
    await release(sqs, queueUrl, state);
  }
}

function toRecord({ message, receives }: Pending, queueUrl: string): SQSRecord {
  return sqsRecordOf(message, queueUrl, receives);
}

/** A received message as Lambda's SQS event source hands it to a handler. */
export function sqsRecordOf(message: Message, queueUrl: string, receives: number): SQSRecord {
  const attributes = message.Attributes ?? {};
  const [, account = '', name = ''] = new URL(queueUrl).pathname.split('/');
  return {
    messageId: message.MessageId as string,
    receiptHandle: message.ReceiptHandle as string,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: String(receives),
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
    messageAttributes: lambdaMessageAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:${account}:${name}`,
    awsRegion: 'us-east-1',
  };
}

/** Message attributes as Lambda's event source spells them (`traceparent` rides there). */
function lambdaMessageAttributes(
  attributes: Message['MessageAttributes'],
): SQSRecord['messageAttributes'] {
  const out: SQSRecord['messageAttributes'] = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    out[name] = {
      dataType: value.DataType ?? 'String',
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return out;
}
