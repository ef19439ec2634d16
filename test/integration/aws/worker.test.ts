import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { drain, pollOnce } from '../../../lib/local/sqs.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { sampleEvent } from './setup.js';
import { connect, newStack, useEndpoints } from './stack.js';

const server = useScriptedModelServer();
const endpoints = useEndpoints();

/** The sample run-queue event, for the `payer` agent. */
function runEvent(): any {
  return sampleEvent('sqs/run-queue.json', { '\\"demo\\"': '\\"payer\\"' });
}

function job(requestId: string, sessionId: string): Record<string, unknown> {
  return {
    kind: 'run',
    requestId,
    principal: 'alice',
    agent: 'payer',
    sessionId,
    runId: `run-${requestId}`,
    input: 'Hi',
    enqueuedAt: Date.now(),
  };
}

async function queued(stack: Awaited<ReturnType<typeof newStack>>, url: string): Promise<any[]> {
  const received = await stack.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }),
  );
  return (received.Messages ?? []).map((m) => JSON.parse(m.Body ?? 'null'));
}

describe('worker function', () => {
  it('runs a job delivered twice only once', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);
    server.push({ text: 'Once.' }, { text: 'Twice?!' });

    // Act
    const first = await stack.handlers.worker(runEvent());
    const second = await stack.handlers.worker(runEvent());

    // Assess
    expect(first.batchItemFailures).toEqual([]);
    expect(second.batchItemFailures).toEqual([]);
    expect(server.requests).toHaveLength(1);
    const batches = await queued(stack, stack.queues.events);
    expect(batches.every((b) => b.message.runId === 'sqs-run-1')).toBe(true);
    expect(batches.flatMap((b) => b.message.events).at(-1)).toMatchObject({
      type: 'run-finished',
      reply: { text: 'Once.' },
    });
    expect(await stack.deployed.runs.get('sqs-session-1', 'sqs-run-1')).toMatchObject({
      status: 'completed',
    });
  });

  it('reports a job another instance is running as failed, so SQS offers it again', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);
    await stack.deployed.idempotency.claim('job:sqs-session-1:req-sqs-run-1');

    // Act
    const result = await stack.handlers.worker(runEvent());

    // Assess
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: runEvent().Records[0].messageId }]);
    expect(server.requests).toHaveLength(0);
  });

  it('fails a poison job while the other jobs of its batch succeed; it ends in the DLQ', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);
    server.push({ text: 'For A.' }, { text: 'For B.' });
    const send = (body: string, group: string, dedup: string) =>
      stack.sqs.send(
        new SendMessageCommand({
          QueueUrl: stack.queues.run,
          MessageBody: body,
          MessageGroupId: group,
          MessageDeduplicationId: dedup,
        }),
      );
    await send(JSON.stringify(job('req-a', 's-a')), 's-a', 'req-a');
    await send('{"kind":"run","requestId":', 's-poison', 'poison');
    await send(JSON.stringify(job('req-b', 's-b')), 's-b', 'req-b');

    // Act
    const first = await pollOnce(stack.sqs, stack.queues.run, stack.handlers.worker as never);
    await drain(stack.sqs, stack.queues.run, stack.handlers.worker as never);

    // Assess
    expect(first.received).toBe(3);
    expect(first.failed).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
    expect(await stack.deployed.runs.get('s-a', 'run-req-a')).toMatchObject({
      status: 'completed',
    });
    expect(await stack.deployed.runs.get('s-b', 'run-req-b')).toMatchObject({
      status: 'completed',
    });
    const dead = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.queues.runDlq }));
    expect(dead.Messages?.map((m) => m.Body)).toEqual(['{"kind":"run","requestId":']);
  });

  it('fails the later jobs of a failed job’s group, keeping the group in order', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);
    const event = runEvent();
    const [record] = event.Records;
    const later = {
      ...record,
      messageId: 'later',
      body: JSON.stringify(job('req-later', 'sqs-session-1')),
    };
    event.Records = [{ ...record, body: 'not json' }, later];

    // Act
    const result = await stack.handlers.worker(event);

    // Assess
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      record.messageId,
      'later',
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('records a run that fails as failed, and its run-error reaches the client', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);
    const event = runEvent();
    event.Records[0].body = JSON.stringify({ ...job('req-x', 's-x'), agent: 'nobody' });

    // Act
    const result = await stack.handlers.worker(event);

    // Assess
    expect(result.batchItemFailures).toEqual([]);
    const [batch] = await queued(stack, stack.queues.events);
    expect(batch.message.events).toEqual([
      expect.objectContaining({ type: 'run-error', code: 'agent-not-found' }),
    ]);
    expect(await stack.deployed.runs.get('s-x', 'run-req-x')).toMatchObject({
      status: 'failed',
      error: { code: 'agent-not-found' },
    });
  });

  it('posts straight to the subscribers in direct delivery mode', async () => {
    // Prepare
    const stack = await newStack(server, endpoints, { DELIVERY_MODE: 'direct' });
    await connect(stack, 'conn-d', 'alice');
    server.push({ text: 'Direct.' });
    const event = runEvent();
    event.Records[0].body = JSON.stringify({ ...job('req-d', 's-d'), connectionId: 'conn-d' });

    // Act
    await stack.handlers.worker(event);

    // Assess
    const messages = endpoints.connections.messages('conn-d');
    expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i));
    expect(messages.flatMap((m) => m.events).at(-1)).toMatchObject({ type: 'run-finished' });
    expect(await queued(stack, stack.queues.events)).toEqual([]);
  });

  it('takes the same request re-sent from a new connection as the same job', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);
    server.push({ text: 'Once.' }, { text: 'Twice?!' });
    const first = runEvent();
    const body = { ...job('req-re', 's-re'), connectionId: 'conn-old' };
    first.Records[0].body = JSON.stringify(body);
    const again = runEvent();
    again.Records[0].body = JSON.stringify({
      ...body,
      connectionId: 'conn-new',
      enqueuedAt: Date.now() + 60_000,
    });

    // Act
    const results = [await stack.handlers.worker(first), await stack.handlers.worker(again)];

    // Assess
    expect(results.flatMap((r) => r.batchItemFailures)).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });
});
