import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalEndpoint } from '../../../lib/local/dynalite.js';
import { createQueue, localSqsClient, startLocalSqs, startPoller } from '../../../lib/local/sqs.js';

let sqs: LocalEndpoint;
beforeAll(async () => {
  sqs = await startLocalSqs();
});
afterAll(async () => {
  await sqs.stop();
});

describe('local SQS poller', () => {
  it('hands sent messages to the handler in order and retries the failed one', async () => {
    // Prepare
    const client = localSqsClient(sqs.url);
    const { url } = await createQueue(client, 'poller-test', { fifo: true });
    const seen: string[] = [];
    let failedOnce = false;
    const poller = startPoller(client, url, async (event: SQSEvent) => {
      const failures = [];
      for (const record of event.Records) {
        seen.push(record.body);
        if (record.body === 'b' && !failedOnce) {
          failedOnce = true;
          failures.push({ itemIdentifier: record.messageId });
        }
      }
      return { batchItemFailures: failures };
    });

    // Act
    for (const body of ['a', 'b', 'c']) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: body,
          MessageGroupId: 'g',
          MessageDeduplicationId: body,
        }),
      );
    }
    await expect.poll(() => seen.filter((b) => b === 'b').length, { timeout: 10_000 }).toBe(2);
    await poller.stop();
    client.destroy();

    // Assess
    expect(seen.slice(0, 1)).toEqual(['a']);
    expect(seen.filter((b) => b === 'c')).toEqual(['c']);
  });
});
