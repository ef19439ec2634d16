import { ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { payments } from './setup.js';
import { connect, newStack, send, settle, useEndpoints } from './stack.js';

const server = useScriptedModelServer();
const endpoints = useEndpoints();
beforeEach(() => {
  payments.length = 0;
});

const payCall = { id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 10 } };

/** The events a connection received, in seq order, after checking seq runs 0, 1, 2... */
function eventsOf(messages: any[], runId: string): any[] {
  const batches = messages.filter((m) => m.type === 'events' && m.runId === runId);
  expect(batches.map((m) => m.seq)).toEqual(batches.map((_, i) => i));
  return batches.flatMap((m) => m.events);
}

describe('WebSocket → run queue → worker → events queue → fan-out', () => {
  it('streams a run to its requester in order, with seq contiguous from 0', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);
    await connect(stack, 'conn-a', 'alice');
    server.push({ text: 'Hello Alice, nice to meet you.' });

    // Act
    await send(stack, 'conn-a', 'alice', {
      action: 'run',
      requestId: 'req-1',
      agent: 'payer',
      sessionId: 's-1',
      input: 'Hi',
    });
    await settle(stack);

    // Assess
    const messages = endpoints.connections.messages('conn-a');
    expect(messages[0]).toMatchObject({ type: 'accepted', requestId: 'req-1', sessionId: 's-1' });
    const events = eventsOf(messages, messages[0].runId);
    expect(events[0]).toMatchObject({ type: 'run-started' });
    expect(events.at(-1)).toMatchObject({
      type: 'run-finished',
      reply: { text: 'Hello Alice, nice to meet you.' },
    });
    const text = events.filter((e) => e.type === 'text-delta').map((e) => e.delta);
    expect(text.join('')).toBe('Hello Alice, nice to meet you.');
    expect(await stack.deployed.runs.get('s-1', messages[0].runId)).toMatchObject({
      status: 'completed',
    });
  });

  it('pauses, takes a decision from the approvals queue, and finishes the run', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);
    await connect(stack, 'conn-a', 'alice');
    server.push({ toolCalls: [payCall] }, { text: 'Paid Bob.' });
    await send(stack, 'conn-a', 'alice', {
      action: 'run',
      requestId: 'req-pay',
      agent: 'payer',
      sessionId: 's-pay',
      input: 'Pay Bob 10',
    });
    await settle(stack);
    const runId = endpoints.connections.messages('conn-a')[0].runId;
    const announced = await receiveOne(stack.sqs, stack.queues.requests);

    // Act
    await stack.sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.queues.approvals,
        MessageBody: JSON.stringify({
          sessionId: 's-pay',
          runId,
          principal: 'alice',
          requestId: 'approval-1',
          decisions: [{ id: 'call_pay_1', status: 'approved' }],
        }),
      }),
    );
    await settle(stack);

    // Assess
    expect(announced).toMatchObject({
      sessionId: 's-pay',
      runId,
      agent: 'payer',
      interruptions: [{ id: 'call_pay_1', kind: 'tool-approval', toolName: 'send_payment' }],
    });
    const events = eventsOf(endpoints.connections.messages('conn-a'), runId);
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t.startsWith('tool-call-'))).toEqual([
      'tool-call-start',
      ...types.filter((t) => t === 'tool-call-args'),
      'tool-call-end',
      'tool-call-result',
    ]);
    expect(types.indexOf('run-paused')).toBeLessThan(types.indexOf('tool-call-result'));
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Paid Bob.' } });
    expect(payments).toEqual([{ to: 'bob', amount: 10 }]);
    expect(await stack.deployed.runs.get('s-pay', runId)).toMatchObject({ status: 'completed' });
  });

  it('refuses a decision from a principal who does not own the session', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);
    await connect(stack, 'conn-a', 'alice');
    server.push({ toolCalls: [payCall] }, { text: 'Paid Bob.' });
    await send(stack, 'conn-a', 'alice', {
      action: 'run',
      requestId: 'req-pay',
      agent: 'payer',
      sessionId: 's-pay',
      input: 'Pay Bob 10',
    });
    await settle(stack);
    const runId = endpoints.connections.messages('conn-a')[0].runId;

    // Act
    await stack.sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.queues.approvals,
        MessageBody: JSON.stringify({
          sessionId: 's-pay',
          runId,
          principal: 'mallory',
          decisions: [{ id: 'call_pay_1', status: 'approved' }],
        }),
      }),
    );
    await settle(stack);

    // Assess
    expect(payments).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(await stack.deployed.runtime.pausedRuns?.get('s-pay', runId)).toMatchObject({
      status: 'pending',
    });
    expect(await stack.deployed.runs.get('s-pay', runId)).toMatchObject({ status: 'paused' });
  });

  it('posts to every subscriber; a gone connection is deleted and the others still get it', async () => {
    // Prepare
    const stack = await newStack(server, endpoints);
    for (const id of ['conn-a', 'conn-b', 'conn-c']) await connect(stack, id, 'alice');
    server.push({ text: 'First.' }, { text: 'Second answer.' });
    await send(stack, 'conn-a', 'alice', {
      action: 'run',
      requestId: 'req-1',
      agent: 'payer',
      sessionId: 's-many',
      input: 'One',
    });
    await settle(stack);
    await send(stack, 'conn-b', 'alice', { action: 'subscribe', sessionId: 's-many' });
    await send(stack, 'conn-c', 'alice', {
      action: 'subscribe',
      sessionId: 's-many',
      format: 'ag-ui',
    });
    endpoints.connections.gone.add('conn-b');

    // Act
    await send(stack, 'conn-a', 'alice', {
      action: 'run',
      requestId: 'req-2',
      agent: 'payer',
      sessionId: 's-many',
      input: 'Two',
    });
    await settle(stack);

    // Assess
    const runId = endpoints.connections.messages('conn-a').at(-1).runId;
    const forA = endpoints.connections.messages('conn-a').filter((m) => m.runId === runId);
    expect(forA[0]).toMatchObject({ type: 'accepted', requestId: 'req-2' });
    const events = eventsOf(forA, runId);
    expect(events.at(-1)).toMatchObject({ type: 'run-finished' });
    const agUi = endpoints.connections.messages('conn-c').filter((m) => m.runId === runId);
    expect(agUi.every((m) => m.format === 'ag-ui')).toBe(true);
    expect(agUi.flatMap((m) => m.events)).toHaveLength(events.length);
    expect(agUi.flatMap((m) => m.events).at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'success' },
    });
    expect(endpoints.connections.messages('conn-b')).toEqual([]);
    expect(await stack.deployed.connections.get('conn-b')).toBeUndefined();
    const subscribers = await stack.deployed.connections.subscribers('s-many');
    expect(subscribers.map((s) => s.connectionId).sort()).toEqual(['conn-a', 'conn-c']);
  });
});

async function receiveOne(sqs: SQSClient, queueUrl: string): Promise<unknown> {
  const received = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1 }),
  );
  return JSON.parse(received.Messages?.[0]?.Body ?? 'null');
}
