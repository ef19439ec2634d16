import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SqsFanoutDelivery } from '../../../lib/aws/adapters/delivery.js';
import { BatchEntriesFailed } from '../../../lib/aws/adapters/sqs-queues.js';
import { createWorkerHandler } from '../../../lib/aws/handlers/worker.js';
import { createQueue, drain, localSqsClient } from '../../../lib/local/sqs.js';
import type { EventsMessage } from '../../../lib/transport/protocol.js';
import { enqueue } from '../../helpers/faults/jobs.js';
import { failEntriesTimes, type SqsProxy, startSqsProxy } from '../../helpers/faults/sqs-proxy.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { connect, newStack, useEndpoints } from './stack.js';

const server = useScriptedModelServer();
const endpoints = useEndpoints();
let proxy: SqsProxy;
let viaProxy: SQSClient;

beforeAll(async () => {
  proxy = await startSqsProxy(endpoints.sqs.url);
  viaProxy = localSqsClient(proxy.url);
});
afterAll(async () => {
  viaProxy.destroy();
  await proxy.close();
});
beforeEach(() => {
  proxy.setRule(undefined);
  proxy.entries.length = 0;
  proxy.operations.length = 0;
});

const seqOf = (entry: { MessageBody: string }) => JSON.parse(entry.MessageBody).message.seq;

function messages(runId: string, count: number): EventsMessage[] {
  return Array.from({ length: count }, (_, seq) => ({
    type: 'events',
    sessionId: 's-batch',
    runId,
    seq,
    events: [{ type: 'text-delta', runId, messageId: 'm', delta: `piece ${seq} ` }],
  }));
}

/** Every message on the queue, as the fan-out would get them. */
async function received(queueUrl: string): Promise<EventsMessage[]> {
  const got: EventsMessage[] = [];
  await drain(endpoints.sqsClient, queueUrl, async (event: SQSEvent) => {
    for (const record of event.Records as SQSRecord[]) got.push(JSON.parse(record.body).message);
    return { batchItemFailures: [] };
  });
  return got;
}

describe('sqs-fanout SendMessageBatch with failed entries', () => {
  it('sends 25 batches in 10-entry calls and retries only the failed entries: none lost, none twice', async () => {
    // Prepare: every fourth entry fails the first time SQS sees it
    const queue = await createQueue(endpoints.sqsClient, `events-b1-${Date.now()}`, { fifo: true });
    const delivery = new SqsFanoutDelivery({ sqs: viaProxy }, queue.url, { owner: 'alice' });
    proxy.setRule(failEntriesTimes((e) => seqOf(e) % 4 === 1));

    // Act
    await delivery.deliverMany(messages('run-b1', 25));

    // Assess
    const batchCalls = proxy.operations.filter((o) => o === 'SendMessageBatch').length;
    expect(proxy.operations).not.toContain('SendMessage');
    // 3 calls of ≤ 10 entries, then one retry per call that had a failed entry.
    expect(batchCalls).toBe(6);
    const retried = proxy.entries.filter((e) => e.failed).map(seqOf);
    expect(retried).toEqual([1, 5, 9, 13, 17, 21]);
    const seqs = (await received(queue.url)).map((m) => m.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('fails the call when an entry keeps failing; sending the batch again duplicates nothing', async () => {
    // Prepare: seq 7 fails every time
    const queue = await createQueue(endpoints.sqsClient, `events-b2-${Date.now()}`, { fifo: true });
    const delivery = new SqsFanoutDelivery({ sqs: viaProxy }, queue.url, { owner: 'alice' });
    proxy.setRule((e) => seqOf(e) === 7);
    const batch = messages('run-b2', 12);

    // Act
    const error = await delivery.deliverMany(batch).catch((err: unknown) => err);
    proxy.setRule(undefined);
    await delivery.deliverMany(batch);

    // Assess: the caller's retry re-sends sent entries with the same dedup ids; SQS drops them
    expect(error).toBeInstanceOf(BatchEntriesFailed);
    expect((error as BatchEntriesFailed).failed.map((f) => f.code)).toEqual(['InternalError']);
    const seqs = (await received(queue.url)).map((m) => m.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it('a worker streaming through failing entries: each subscriber gets every seq once, the terminal once', async () => {
    // Prepare: the worker's SQS client goes through the proxy; a third of the entries fail once.
    // A 1 s window: the tail of the text is still buffered when the terminal event comes, so the
    // two go in one SendMessageBatch however slow the machine (a short timer would send it first).
    const stack = await newStack(server, endpoints, {
      DELIVERY_MODE: 'sqs-fanout',
      EVENT_BATCH_MAX_DELAY_MS: '1000',
      EVENT_BATCH_MIN_DELAY_MS: '1000',
    });
    const worker = createWorkerHandler(async () => stack.deployed, {
      clients: { ...stack.clients, sqs: viaProxy },
    });
    const sessionId = 's-batch-worker';
    for (const id of ['sub-a', 'sub-b']) {
      await connect(stack, id, 'alice');
      await stack.deployed.connections.subscribe(id, sessionId);
    }
    let n = 0;
    proxy.setRule(failEntriesTimes(() => n++ % 3 === 0));
    server.push({ text: Array.from({ length: 400 }, (_, i) => `word${i} `).join('') });
    const job = {
      kind: 'run',
      requestId: 'req-batch',
      principal: 'alice',
      agent: 'payer',
      sessionId,
      runId: 'run-batch',
      input: 'Hi',
      connectionId: 'sub-a',
      enqueuedAt: Date.now(),
    };
    await enqueue(stack.sqs, stack.queues.run, job);

    // Act
    type Handler = (event: SQSEvent) => Promise<SQSBatchResponse>;
    await drain(stack.sqs, stack.queues.run, worker as Handler);
    await drain(stack.sqs, stack.queues.events, stack.handlers.fanout as Handler);

    // Assess
    expect(proxy.entries.some((e) => e.failed)).toBe(true);
    // The last batch and the terminal event (at least) went in one call.
    expect(proxy.operations).toContain('SendMessageBatch');
    const texts: string[] = [];
    for (const id of ['sub-a', 'sub-b']) {
      const got = endpoints.connections.messages(id);
      const seqs = got.map((m) => m.seq).sort((a: number, b: number) => a - b);
      expect(seqs).toEqual(seqs.map((_: number, i: number) => i));
      const ordered = [...got].sort((a, b) => a.seq - b.seq);
      const events = ordered.flatMap((m) => m.events);
      const terminals = events.filter((e) => e.type === 'run-finished' || e.type === 'run-error');
      expect(terminals).toEqual([expect.objectContaining({ type: 'run-finished' })]);
      expect(ordered.at(-1).events).toHaveLength(1);
      texts.push(
        events
          .filter((e) => e.type === 'text-delta')
          .map((e) => e.delta)
          .join(''),
      );
    }
    expect(texts[0]).toBe(Array.from({ length: 400 }, (_, i) => `word${i} `).join(''));
    expect(texts[1]).toBe(texts[0]);
  });
});
