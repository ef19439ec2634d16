import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createQueue,
  type LocalSqs,
  localSqsClient,
  startLocalSqs,
  startPoller,
} from '../../../lib/local/sqs.js';

let sqs: LocalSqs;
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

  it('hands a failed message out again only after its backoff, and its group waits', async () => {
    // Prepare
    const client = localSqsClient(sqs.url);
    const { url } = await createQueue(client, 'poller-backoff', { fifo: true });
    const seen: { body: string; at: number; receives: string }[] = [];
    const poller = startPoller(
      client,
      url,
      async (event: SQSEvent) => {
        const failures = [];
        for (const record of event.Records) {
          const receives = record.attributes.ApproximateReceiveCount;
          seen.push({ body: record.body, at: Date.now(), receives });
          if (record.body === 'x' && receives !== '3')
            failures.push({ itemIdentifier: record.messageId });
        }
        return { batchItemFailures: failures };
      },
      { batchSize: 1, waitSeconds: 0, retryDelayMs: (receives) => 300 * 2 ** (receives - 1) },
    );

    // Act
    for (const body of ['x', 'y']) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: body,
          MessageGroupId: 'g',
          MessageDeduplicationId: body,
        }),
      );
    }
    await expect.poll(() => seen.some((s) => s.body === 'y'), { timeout: 10_000 }).toBe(true);
    await poller.stop();
    client.destroy();

    // Assess
    const x = seen.filter((s) => s.body === 'x');
    expect(x.map((s) => s.receives)).toEqual(['1', '2', '3']);
    expect(x[1]!.at - x[0]!.at).toBeGreaterThanOrEqual(300);
    expect(x[2]!.at - x[1]!.at).toBeGreaterThanOrEqual(600);
    // y waited behind x: its group is held while x backs off.
    expect(seen.at(-1)?.body).toBe('y');
    expect(seen.filter((s) => s.body === 'y')).toHaveLength(1);
  });

  it('wakes on a send to its queue, as an event source mapping does, and not on other queues', async () => {
    // Prepare: a fallback poll far beyond the test's wait, so only the wake can deliver
    const client = localSqsClient(sqs.url);
    const { url } = await createQueue(client, 'poller-wake', { fifo: true });
    const other = await createQueue(client, 'poller-other');
    const name = url.split('/').at(-1);
    const wakes: string[] = [];
    const seen: string[] = [];
    const poller = startPoller(
      client,
      url,
      async (event: SQSEvent) => {
        for (const record of event.Records) seen.push(record.body);
        return { batchItemFailures: [] };
      },
      {
        idlePollMs: 600_000,
        wake: (listener) =>
          sqs.onSend((queue) => {
            wakes.push(queue);
            if (queue === name) listener();
          }),
      },
    );
    // The first poll (at start) found the queue empty; the poller is asleep now.
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Act
    await client.send(new SendMessageCommand({ QueueUrl: other.url, MessageBody: 'elsewhere' }));
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
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(3);
    await poller.stop();
    client.destroy();

    // Assess
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(wakes).toEqual(['poller-other', name, name, name]);
  });

  it('still polls every idlePollMs when no send wakes it', async () => {
    // Prepare: a wake that never fires
    const client = localSqsClient(sqs.url);
    const { url } = await createQueue(client, 'poller-fallback');
    const seen: string[] = [];
    const poller = startPoller(
      client,
      url,
      async (event: SQSEvent) => {
        for (const record of event.Records) seen.push(record.body);
        return { batchItemFailures: [] };
      },
      { idlePollMs: 200, wake: () => () => undefined },
    );

    // Act
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'quiet' }));
    await expect.poll(() => seen, { timeout: 10_000 }).toEqual(['quiet']);
    await poller.stop();
    client.destroy();

    // Assess: handed out once and deleted
    expect(seen).toEqual(['quiet']);
  });
});
