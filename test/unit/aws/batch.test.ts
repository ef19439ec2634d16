import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { processBatch } from '../../../lib/aws/middleware/sqs-batch.js';

function record(messageId: string, body: string, group?: string): SQSRecord {
  return {
    messageId,
    receiptHandle: messageId,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '0',
      SenderId: 's',
      ApproximateFirstReceiveTimestamp: '0',
      ...(group ? { MessageGroupId: group } : {}),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:0:q',
    awsRegion: 'us-east-1',
  };
}

const failOn = (bad: string) => async (r: SQSRecord) => {
  if (r.body === bad) throw new Error('bad');
};

describe('processBatch', () => {
  it('reports only the failed records of a standard queue', async () => {
    // Prepare
    const seen: string[] = [];
    const event: SQSEvent = { Records: [record('1', 'ok'), record('2', 'bad'), record('3', 'ok')] };

    // Act
    const result = await processBatch(event, async (r) => {
      seen.push(r.messageId);
      await failOn('bad')(r);
    });

    // Assess
    expect(seen).toEqual(['1', '2', '3']);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: '2' }]);
  });

  it('fails the later records of a failed FIFO group without handling them', async () => {
    // Prepare
    const seen: string[] = [];
    const event: SQSEvent = {
      Records: [
        record('a1', 'bad', 'a'),
        record('b1', 'ok', 'b'),
        record('a2', 'ok', 'a'),
        record('b2', 'ok', 'b'),
      ],
    };

    // Act
    const result = await processBatch(event, async (r) => {
      seen.push(r.messageId);
      await failOn('bad')(r);
    });

    // Assess
    expect(seen).toEqual(['a1', 'b1', 'b2']);
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a1', 'a2']);
  });

  it('counts the failed records as one FailedRecords EMF line per batch, by function', async () => {
    // Prepare
    const event: SQSEvent = {
      Records: [record('a1', 'bad', 'a'), record('a2', 'ok', 'a'), record('b1', 'ok', 'b')],
    };
    // Act
    const failed = await stdoutOf(() => processBatch(event, failOn('bad'), { spanName: 'fanout' }));
    const clean = await stdoutOf(() =>
      processBatch({ Records: [record('c1', 'ok')] }, failOn('bad'), { spanName: 'fanout' }),
    );
    // Assess: two failed (a1 and a2 behind it), none from a clean batch.
    const lines = failed.filter((line) => 'FailedRecords' in line);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ FailedRecords: 2, FunctionName: 'fanout' });
    expect(lines[0]._aws.CloudWatchMetrics[0]).toEqual({
      Namespace: 'AgentKernel',
      Dimensions: [['FunctionName']],
      Metrics: [{ Name: 'FailedRecords', Unit: 'Count' }],
    });
    expect(clean.filter((line) => 'FailedRecords' in line)).toEqual([]);
  });
});

/** The JSON lines `fn` wrote to stdout (what Lambda ships to CloudWatch Logs, EMF included). */
async function stdoutOf(fn: () => Promise<unknown>): Promise<any[]> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => {
    chunks.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    await fn();
  } finally {
    process.stdout.write = write;
  }
  return chunks
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}
