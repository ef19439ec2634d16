import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { withTraceHeader } from '../tracing/propagation.js';
import type { FifoKeys } from '../transport/fifo.js';
import type { Config, ConfigKey } from './config.js';
import { ConfigError } from './errors.js';

/**
 * Sends one JSON message; FIFO keys when the queue is FIFO. The active span's X-Ray header rides
 * along (`AWSTraceHeader`), so the consumer's spans join this request's trace.
 */
export async function sendJson(
  sqs: SQSClient,
  queueUrl: string,
  body: unknown,
  keys?: FifoKeys,
): Promise<void> {
  await sqs.send(
    new SendMessageCommand(
      withTraceHeader({
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
