import { type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sqsRecordOf } from '../../../lib/local/sqs-poller.js';

/** A received message as Lambda's event source hands it to a handler. */
export const recordOf = sqsRecordOf;

/**
 * Short-polls until a message is visible (local-aws-sqs answers long polls late), or undefined
 * after `timeoutMs`.
 */
export async function receiveOne(
  sqs: SQSClient,
  queueUrl: string,
  timeoutMs: number,
): Promise<Message | undefined> {
  const until = Date.now() + timeoutMs;
  do {
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 1,
        AttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    if (Messages?.[0]) return Messages[0];
    await new Promise((resolve) => setTimeout(resolve, 100));
  } while (Date.now() < until);
  return undefined;
}

/** A Lambda context whose deadline is `ms` from now. */
export function contextFor(ms: number): { getRemainingTimeInMillis(): number } {
  const deadline = Date.now() + ms;
  return { getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
}
