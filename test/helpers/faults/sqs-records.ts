import { type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';

/** A received message as Lambda's event source hands it to a handler. */
export function recordOf(message: Message, queueUrl: string, receives: number): SQSRecord {
  const attributes = message.Attributes ?? {};
  const [, account = '', name = ''] = new URL(queueUrl).pathname.split('/');
  return {
    messageId: message.MessageId as string,
    receiptHandle: message.ReceiptHandle as string,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: String(receives),
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: '0',
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:${account}:${name}`,
    awsRegion: 'us-east-1',
  };
}

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
