import { ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalEndpoint } from '../../../lib/local/dynalite.js';
import {
  createQueue,
  localSqsClient,
  type Poller,
  startLocalSqs,
  startPoller,
} from '../../../lib/local/sqs.js';

let endpoint: LocalEndpoint;
let sqs: SQSClient;
const pollers: Poller[] = [];

beforeAll(async () => {
  endpoint = await startLocalSqs();
  sqs = localSqsClient(endpoint.url);
});
afterAll(async () => {
  await Promise.all(pollers.splice(0).map((p) => p.stop()));
  sqs?.destroy();
  await endpoint?.stop();
});

let queues = 0;
async function fifoQueue(maxReceiveCount?: number) {
  return createQueue(sqs, `fifo-order-${++queues}`, {
    fifo: true,
    ...(maxReceiveCount ? { maxReceiveCount } : {}),
  });
}

async function sendAll(url: string, messages: [group: string, body: string][]): Promise<void> {
  for (const [group, body] of messages) {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: body,
        MessageGroupId: group,
        MessageDeduplicationId: body,
      }),
    );
  }
}

interface Attempt {
  body: string;
  receiveCount: number;
  ok: boolean;
}

/**
 * A FIFO-correct handler as lib/aws/middleware/sqs-batch.ts writes them: once a record of a group fails, the
 * group's later records of the batch are failed too (not handled). `fails` decides per attempt.
 */
function fifoHandler(attempts: Attempt[], fails: (body: string) => boolean) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failedGroups = new Set<string>();
    const batchItemFailures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      const group = record.attributes.MessageGroupId as string;
      if (failedGroups.has(group)) {
        batchItemFailures.push({ itemIdentifier: record.messageId });
        continue;
      }
      const ok = !fails(record.body);
      attempts.push({
        body: record.body,
        receiveCount: Number(record.attributes.ApproximateReceiveCount),
        ok,
      });
      if (!ok) {
        failedGroups.add(group);
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}

const handled = (attempts: Attempt[], prefix: string) =>
  attempts.filter((a) => a.ok && a.body.startsWith(prefix)).map((a) => a.body);

describe('local SQS poller: FIFO groups and redrive', () => {
  it('retries a failed message before the later ones of its group while other groups go on', async () => {
    // Prepare: a1 fails until b and c are done, which they can only be if a does not block them.
    const { url } = await fifoQueue();
    const attempts: Attempt[] = [];
    const others = ['b1', 'b2', 'b3', 'b4', 'c1', 'c2', 'c3', 'c4'];
    const allOthersDone = () => others.every((b) => handled(attempts, b).length === 1);
    const poller = startPoller(
      sqs,
      url,
      fifoHandler(attempts, (body) => body === 'a1' && !allOthersDone()),
      { batchSize: 3, waitSeconds: 0 },
    );
    pollers.push(poller);

    // Act
    await sendAll(url, [
      ['a', 'a1'],
      ['b', 'b1'],
      ['c', 'c1'],
      ['a', 'a2'],
      ['b', 'b2'],
      ['c', 'c2'],
      ['a', 'a3'],
      ['b', 'b3'],
      ['c', 'c3'],
      ['a', 'a4'],
      ['b', 'b4'],
      ['c', 'c4'],
    ]);
    await expect
      .poll(() => handled(attempts, ''), { timeout: 20_000, interval: 50 })
      .toHaveLength(12);

    // Assess
    expect(handled(attempts, 'a')).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(handled(attempts, 'b')).toEqual(['b1', 'b2', 'b3', 'b4']);
    expect(handled(attempts, 'c')).toEqual(['c1', 'c2', 'c3', 'c4']);
    const a1 = attempts.filter((a) => a.body === 'a1');
    expect(a1.length).toBeGreaterThan(1);
    // Every receive counts once: 1, 2, 3, ...
    expect(a1.map((a) => a.receiveCount)).toEqual(a1.map((_, i) => i + 1));
    // No later message of group a was handled before a1 succeeded.
    const a1Done = attempts.findIndex((a) => a.body === 'a1' && a.ok);
    expect(attempts.slice(0, a1Done).filter((a) => /^a[234]$/.test(a.body))).toEqual([]);
    await poller.stop();
  });

  it('moves a poison message to the DLQ after the configured receives; its group then proceeds', async () => {
    // Prepare
    const { url, dlqUrl } = await fifoQueue(3);
    const attempts: Attempt[] = [];
    const poller = startPoller(
      sqs,
      url,
      fifoHandler(attempts, (body) => body === 'p1'),
      { batchSize: 10, waitSeconds: 0 },
    );
    pollers.push(poller);

    // Act
    await sendAll(url, [
      ['p', 'p1'],
      ['p', 'p2'],
      ['q', 'q1'],
      ['p', 'p3'],
      ['q', 'q2'],
    ]);
    await expect
      .poll(() => handled(attempts, ''), { timeout: 20_000, interval: 50 })
      .toHaveLength(4);
    await poller.stop();

    // Assess
    expect(attempts.filter((a) => a.body === 'p1').map((a) => a.receiveCount)).toEqual([1, 2, 3]);
    expect(handled(attempts, 'p')).toEqual(['p2', 'p3']);
    expect(handled(attempts, 'q')).toEqual(['q1', 'q2']);
    const dead = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: dlqUrl,
        MaxNumberOfMessages: 10,
        AttributeNames: ['All'],
      }),
    );
    expect(dead.Messages?.map((m) => [m.Body, m.Attributes?.MessageGroupId])).toEqual([
      ['p1', 'p'],
    ]);
    const left = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }));
    expect(left.Messages ?? []).toEqual([]);
  });

  it('hands out more than nine messages of one group in send order', async () => {
    // Prepare: local-aws-sqs's sequence numbers lose a digit at a group's 10th message.
    const { url } = await fifoQueue();
    const bodies = Array.from({ length: 12 }, (_, i) => `m${i + 1}`);
    await sendAll(
      url,
      bodies.map((b) => ['g', b]),
    );
    const attempts: Attempt[] = [];

    // Act
    const poller = startPoller(
      sqs,
      url,
      fifoHandler(attempts, () => false),
      { batchSize: 10, waitSeconds: 0 },
    );
    pollers.push(poller);
    await expect.poll(() => attempts.length, { timeout: 20_000, interval: 50 }).toBe(12);
    await poller.stop();

    // Assess
    expect(handled(attempts, 'm')).toEqual(bodies);
  });
});
