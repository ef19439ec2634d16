import { setTimeout as sleep } from 'node:timers/promises';
import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { withTraceContext } from '../../tracing/propagation.js';
import type { FifoKeys } from '../../transport/fifo.js';
import type { Config, ConfigKey } from '../wiring/config.js';
import { ConfigError } from '../wiring/errors.js';

/**
 * Sends one JSON message; FIFO keys when the queue is FIFO. The active span's X-Ray header rides
 * along (`AWSTraceHeader`), and its W3C context with an OTel backend (`traceparent`), so the
 * consumer's spans join this request's trace.
 */
export async function sendJson(
  sqs: SQSClient,
  queueUrl: string,
  body: unknown,
  keys?: FifoKeys,
): Promise<void> {
  await sqs.send(
    new SendMessageCommand(
      withTraceContext({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify(body),
        ...(keys
          ? { MessageGroupId: keys.groupId, MessageDeduplicationId: keys.deduplicationId }
          : {}),
      }),
    ),
  );
}

/** SQS's limits on one SendMessageBatch: 10 entries, 256 KB of bodies and attributes in all. */
export const SQS_BATCH_ENTRIES = 10;
export const SQS_BATCH_BYTES = 256 * 1024;
/** Room kept per entry for its attributes (trace header, FIFO keys). */
const ENTRY_OVERHEAD_BYTES = 1024;
/** Tries of the entries SQS failed (an internal error, a throttle) before the send fails. */
const BATCH_ATTEMPTS = 4;
const BATCH_RETRY_MS = 50;

export interface JsonEntry {
  body: unknown;
  keys?: FifoKeys;
}

/** A SendMessageBatch that left entries unsent after its retries (or that SQS refused). */
export class BatchEntriesFailed extends Error {
  constructor(readonly failed: { index: number; code: string; message: string }[]) {
    super(`SendMessageBatch: ${failed.length} entries not sent (${failed[0]?.code ?? '?'})`);
    this.name = 'BatchEntriesFailed';
  }
}

/**
 * Sends JSON messages in as few SendMessageBatch calls as SQS's limits allow (10 entries,
 * 256 KB), in order. Entries SQS fails (`Failed` in a 200 answer) are sent again in a batch of
 * their own with the same FIFO deduplication id, so a retry never duplicates one that went; a sender
 * fault, or an entry still failing after a few tries, fails the call (the caller retries it).
 */
export async function sendJsonBatch(
  sqs: SQSClient,
  queueUrl: string,
  entries: readonly JsonEntry[],
): Promise<void> {
  const prepared = entries.map((entry, index) => toEntry(entry, index));
  for (const chunk of chunksOf(prepared)) await sendChunk(sqs, queueUrl, chunk);
}

function toEntry(entry: JsonEntry, index: number): SendMessageBatchRequestEntry {
  const { keys } = entry;
  return withTraceContext({
    Id: String(index),
    MessageBody: JSON.stringify(entry.body),
    ...(keys ? { MessageGroupId: keys.groupId, MessageDeduplicationId: keys.deduplicationId } : {}),
  });
}

/** Consecutive runs of entries within the count and byte limits. */
function chunksOf(entries: SendMessageBatchRequestEntry[]): SendMessageBatchRequestEntry[][] {
  const chunks: SendMessageBatchRequestEntry[][] = [];
  let chunk: SendMessageBatchRequestEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(entry.MessageBody ?? '', 'utf8') + ENTRY_OVERHEAD_BYTES;
    if (
      chunk.length === SQS_BATCH_ENTRIES ||
      (chunk.length > 0 && bytes + size > SQS_BATCH_BYTES)
    ) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(entry);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

async function sendChunk(
  sqs: SQSClient,
  queueUrl: string,
  chunk: SendMessageBatchRequestEntry[],
): Promise<void> {
  let pending = chunk;
  for (let attempt = 1; ; attempt++) {
    const answer = await sqs.send(
      new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }),
    );
    const failed = answer.Failed ?? [];
    if (failed.length === 0) return;
    const ids = new Set(failed.map((f) => f.Id));
    const refused = failed.some((f) => f.SenderFault);
    if (refused || attempt >= BATCH_ATTEMPTS) {
      throw new BatchEntriesFailed(
        failed.map((f) => ({
          index: Number(f.Id),
          code: f.Code ?? 'unknown',
          message: f.Message ?? '',
        })),
      );
    }
    pending = pending.filter((e) => ids.has(e.Id));
    await sleep(BATCH_RETRY_MS * 2 ** (attempt - 1));
  }
}

/** A queue URL the function cannot work without: named in the error when missing. */
export function queueUrl(config: Config, key: ConfigKey & `${string}_QUEUE_URL`): string {
  const url = config[key];
  if (!url) throw new ConfigError([{ variable: key, message: 'is required' }]);
  return url;
}

/**
 * Seconds until a failed job is offered again: base × 2^(receives − 1), at most `max`. Short
 * first retries free the session's FIFO group quickly; the doubling spreads a lasting fault.
 */
export function retryDelaySeconds(
  receives: number,
  config: Pick<Config, 'JOB_RETRY_BASE_SECONDS' | 'JOB_RETRY_MAX_SECONDS'>,
): number {
  const n = Math.max(1, Math.floor(receives));
  const delay = config.JOB_RETRY_BASE_SECONDS * 2 ** Math.min(n - 1, 20);
  return Math.min(config.JOB_RETRY_MAX_SECONDS, Math.round(delay));
}

/**
 * The URL of the queue a record came from, from its ARN: the SQS endpoint override (the local
 * stack, whose URLs are `<endpoint>/<account>/<name>`) or the regional endpoint.
 */
export function queueUrlOfRecord(
  record: Pick<SQSRecord, 'eventSourceARN' | 'awsRegion'>,
  config: Pick<Config, 'SQS_ENDPOINT'>,
): string {
  const [, , , region, account, name] = record.eventSourceARN.split(':');
  const base = config.SQS_ENDPOINT ?? `https://sqs.${region ?? record.awsRegion}.amazonaws.com`;
  return `${base.replace(/\/$/, '')}/${account}/${name}`;
}

/**
 * Makes a failed record visible again after `seconds` instead of the queue's visibility timeout
 * (the run queue's is 90 minutes). Best effort: if it fails, the timeout still brings it back.
 */
export async function retryAfter(
  sqs: SQSClient,
  record: Pick<SQSRecord, 'eventSourceARN' | 'awsRegion' | 'receiptHandle'>,
  config: Pick<Config, 'SQS_ENDPOINT'>,
  seconds: number,
): Promise<boolean> {
  try {
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrlOfRecord(record, config),
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: seconds,
      }),
    );
    return true;
  } catch {
    return false;
  }
}
