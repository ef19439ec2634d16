import {
  ChangeMessageVisibilityCommand,
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
