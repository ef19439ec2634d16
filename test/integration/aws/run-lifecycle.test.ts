import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createHttpHandler } from '../../../lib/aws/handlers/http-api.js';
import { throttleNext } from '../../helpers/faults/dynamo-proxy.js';
import { clientView } from '../../helpers/faults/jobs.js';
import { contextFor, recordOf } from '../../helpers/faults/sqs-records.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { payments, sampleEvent } from './setup.js';
import type { Stack } from './stack.js';
import { connect, newStack, send, settle, useDynamoProxy, useEndpoints } from './stack.js';

// One record lifecycle and one terminal rule, whichever channel (worker job, HTTP decisions,
// approvals queue) resumes a run: a loser never writes over the winner, and every requester
// gets exactly one terminal event.

const server = useScriptedModelServer();
const endpoints = useEndpoints();
const proxy = useDynamoProxy();
beforeEach(() => {
  payments.length = 0;
});

const payCall = { id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 5 } };

function eventOf(stack: Stack, body: object, id: string, receives = 1) {
  const message = {
    MessageId: id,
    ReceiptHandle: `rh-${id}-${receives}`,
    Body: JSON.stringify(body),
    Attributes: { MessageGroupId: 's' },
  };
  return { Records: [recordOf(message, stack.queues.run, receives)] };
}

/** Runs the payer (worker job) until it pauses for the payment; answers the resume job maker. */
async function pausedRun(stack: Stack, tag: string) {
  await connect(stack, `conn-${tag}`, 'alice');
  server.push({ toolCalls: [payCall] });
  const job = {
    kind: 'run',
    requestId: `req-${tag}`,
    principal: 'alice',
    agent: 'payer',
    sessionId: `s-${tag}`,
    runId: `run-${tag}`,
    input: 'Pay Bob 5',
    connectionId: `conn-${tag}`,
    enqueuedAt: Date.now(),
  };
  await stack.handlers.worker(eventOf(stack, job, `m-${tag}`), contextFor(60_000));
  expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
    status: 'paused',
  });
  const resume = (requestId: string) => ({
    kind: 'resume',
    requestId,
    principal: 'alice',
    sessionId: job.sessionId,
    runId: job.runId,
    decisions: [{ id: 'call_pay_1', status: 'approved' }],
    connectionId: `conn-${tag}`,
    enqueuedAt: Date.now(),
  });
  return { job, resume };
}

/** The HTTP decisions of alice for the run, optionally under an Idempotency-Key. */
function decisions(sessionId: string, runId: string, key?: string) {
  const event = sampleEvent('http/post-decisions.json', {
    'http-session-1': sessionId,
    RUN_ID: runId,
    CALL_ID: 'call_pay_1',
    'user-1': 'alice',
  });
  if (key) event.headers['idempotency-key'] = key;
  return event;
}

/**
 * A gate the worker's model answer waits on: opened once the late HTTP resume reads the run's
 * record (it has started), or once its answer is back.
 */
function lateGate(stack: Stack) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const runs = stack.deployed.runs;
  const get = runs.get.bind(runs);
  return {
    opened,
    open,
    /** From now on, the next record read (the HTTP resume starting) opens the gate. */
    arm() {
      runs.get = async (...args) => {
        open();
        return get(...args);
      };
    },
  };
}

/** The `events` messages a connection received (not its `accepted` and `error` answers). */
const eventsTo = (messages: any[]) => messages.filter((m) => m.type === 'events');

const finishedOf = (messages: any[], runId: string) =>
  clientView(eventsTo(messages)).terminals.filter(
    (e) => e.runId === runId && e.type === 'run-finished',
  );

describe('one run lifecycle across channels', () => {
  it('keeps the record completed when an HTTP decision arrives during a worker resume', async () => {
    // Prepare
    const stack = await newStack(server, endpoints, { DELIVERY_MODE: 'direct' });
    const http = createHttpHandler(async () => stack.deployed);
    const { job, resume } = await pausedRun(stack, 'late');
    const gate = lateGate(stack);
    // The worker's model answer waits for the HTTP decision: it is late by construction, while
    // the worker resume runs.
    server.push(async () => {
      await gate.opened;
      return { text: 'Paid Bob.' };
    });

    // Act
    const worker = stack.handlers.worker(
      eventOf(stack, resume('r-late'), 'r-late'),
      contextFor(60_000),
    );
    await vi.waitFor(() => expect(payments).toHaveLength(1));
    gate.arm();
    const late = await http(decisions(job.sessionId, job.runId)).finally(gate.open);
    const done = await worker;

    // Assess
    expect(done.batchItemFailures).toEqual([]);
    expect(payments).toEqual([{ to: 'bob', amount: 5 }]);
    expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
      status: 'completed',
      reply: { text: 'Paid Bob.' },
    });
    // The late requester gets the winner's outcome, not a refusal.
    expect(late.statusCode, String(late.body)).toBe(200);
    expect(JSON.parse(String(late.body))).toMatchObject({ status: 'completed', text: 'Paid Bob.' });
    expect(finishedOf(endpoints.connections.messages('conn-late'), job.runId)).toHaveLength(1);
  });

  it('keeps the record completed when the paused-run delete was throttled and the decisions are sent again', async () => {
    // Prepare
    const stack = await newStack(
      server,
      endpoints,
      { DELIVERY_MODE: 'direct' },
      { dynamoEndpoint: proxy.url },
    );
    const http = createHttpHandler(async () => stack.deployed);
    const { job } = await pausedRun(stack, 'del');
    server.push({ text: 'Paid Bob.' });
    proxy.setRule(throttleNext((r) => r.operation === 'DeleteItem' && r.body.includes('PAUSED#')));
    const first = await http(decisions(job.sessionId, job.runId, 'decide-1'));
    proxy.setRule(undefined);

    // Act
    const again = await http(decisions(job.sessionId, job.runId, 'decide-2'));

    // Assess
    expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
      status: 'completed',
      reply: { text: 'Paid Bob.' },
    });
    expect(first.statusCode, String(first.body)).toBe(200);
    expect(again.statusCode, String(again.body)).toBe(200);
    expect(JSON.parse(String(again.body))).toMatchObject({
      status: 'completed',
      text: 'Paid Bob.',
    });
    expect(payments).toHaveLength(1);
  });

  it('sends the WebSocket requester of a resume that HTTP finished exactly one terminal event', async () => {
    // Prepare: the WebSocket resume pays, then the model answers 500 (the job will be retried).
    const stack = await newStack(server, endpoints, { DELIVERY_MODE: 'direct' });
    const http = createHttpHandler(async () => stack.deployed);
    const { job, resume } = await pausedRun(stack, 'ws');
    server.push({ error: { status: 500, message: 'boom' } }, { text: 'Paid Bob.' });
    const failed = await stack.handlers.worker(
      eventOf(stack, resume('r-ws'), 'r-ws'),
      contextFor(60_000),
    );
    const byHttp = await http(decisions(job.sessionId, job.runId));

    // Act: the WebSocket job comes back and finds its run finished.
    const redelivered = await stack.handlers.worker(
      eventOf(stack, resume('r-ws'), 'r-ws', 2),
      contextFor(60_000),
    );

    // Assess
    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: 'r-ws' }]);
    expect(byHttp.statusCode, String(byHttp.body)).toBe(200);
    expect(redelivered.batchItemFailures).toEqual([]);
    expect(payments).toHaveLength(1);
    const view = clientView(endpoints.connections.messages('conn-ws'));
    expect(view.terminals.map((e) => e.type)).toEqual(['run-paused', 'run-finished']);
    expect(view.terminals[1]).toMatchObject({ reply: { text: 'Paid Bob.' } });
    expect(view.events.filter((e) => e.type === 'run-retrying')).toEqual([
      expect.objectContaining({ code: 'model-error' }),
    ]);
    expect(view.seqs).toEqual(view.seqs.map((_, i) => i));
    expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
      status: 'completed',
    });
  });

  it('gives every requester of three concurrent resumes (WebSocket, HTTP, approvals queue) exactly one terminal event', async () => {
    // Prepare
    const stack = await newStack(server, endpoints, { DELIVERY_MODE: 'direct' });
    const http = createHttpHandler(async () => stack.deployed);
    await connect(stack, 'conn-a', 'alice');
    await connect(stack, 'conn-b', 'alice');
    server.push({ toolCalls: [payCall] }, { text: 'Paid Bob.' });
    await send(stack, 'conn-a', 'alice', {
      action: 'run',
      requestId: 'req-3',
      agent: 'payer',
      sessionId: 's-3',
      input: 'Pay Bob 5',
    });
    await settle(stack);
    const runId = endpoints.connections.messages('conn-a')[0].runId;
    await send(stack, 'conn-b', 'alice', { action: 'subscribe', sessionId: 's-3' });
    const decided = [{ id: 'call_pay_1', status: 'approved' }];

    // Act
    await send(stack, 'conn-a', 'alice', {
      action: 'resume',
      requestId: 'resume-ws',
      sessionId: 's-3',
      runId,
      decisions: decided,
    });
    await stack.sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.queues.approvals,
        MessageBody: JSON.stringify({
          sessionId: 's-3',
          runId,
          principal: 'alice',
          requestId: 'resume-queue',
          decisions: decided,
        }),
      }),
    );
    const [answer] = await Promise.all([http(decisions('s-3', runId)), settle(stack)]);
    await settle(stack);

    // Assess
    expect(payments).toEqual([{ to: 'bob', amount: 5 }]);
    expect(answer.statusCode, String(answer.body)).toBe(200);
    expect(JSON.parse(String(answer.body))).toMatchObject({
      status: 'completed',
      text: 'Paid Bob.',
    });
    for (const connection of ['conn-a', 'conn-b']) {
      const view = clientView(eventsTo(endpoints.connections.messages(connection)));
      const ofRun = view.terminals.filter((e) => e.runId === runId);
      expect(
        ofRun.map((e) => e.type),
        connection,
      ).toEqual(connection === 'conn-a' ? ['run-paused', 'run-finished'] : ['run-finished']);
    }
    expect(await stack.deployed.runs.get('s-3', runId)).toMatchObject({ status: 'completed' });
  });
});

/**
 * The run as a resume left it when the session was cleared between its start and its claim:
 * the record `running` (that attempt was refused too and wrote nothing), its paused run gone,
 * and the session id living again. Counts the record reads from then on.
 */
async function orphanedRun(stack: Stack, tag: string) {
  const paused = await pausedRun(stack, tag);
  const { sessionId, runId } = paused.job;
  const record = await stack.deployed.runs.get(sessionId, runId);
  const held = { ...record!, status: 'running' as const, updatedAt: Date.now() };
  await stack.deployed.runs.transition(held, { from: ['paused'] });
  await stack.deployed.runtime.clearSession(sessionId, { principal: 'alice' });
  // The id lives again: alice's next run creates the session anew (another incarnation).
  server.push({ text: 'Hello again.' });
  const again = { ...paused.job, requestId: `req-${tag}-2`, runId: `run-${tag}-2`, input: 'Hi' };
  await stack.handlers.worker(eventOf(stack, again, `m-${tag}-2`), contextFor(60_000));
  expect(await stack.deployed.runs.get(sessionId, again.runId)).toMatchObject({
    status: 'completed',
  });
  const reads = { count: 0 };
  const runs = stack.deployed.runs;
  const get = runs.get.bind(runs);
  runs.get = async (...args) => {
    reads.count += 1;
    return get(...args);
  };
  return { ...paused, reads };
}

describe('a resume refused after its session was cleared', () => {
  it('answers the HTTP requester not-found at once instead of waiting for its own record', async () => {
    // Prepare: the clear lands after the resume found its paused run and before it claims it,
    // so the resume takes the record (paused → running) and is then refused.
    const stack = await newStack(server, endpoints, { DELIVERY_MODE: 'direct' });
    const http = createHttpHandler(async () => stack.deployed);
    const { job } = await pausedRun(stack, 'gone-http');
    const runs = stack.deployed.runs;
    const transition = runs.transition.bind(runs);
    runs.transition = async (record, options) => {
      if (record.runId === job.runId && record.status === 'running') {
        runs.transition = transition;
        await stack.deployed.runtime.clearSession(job.sessionId, { principal: 'alice' });
      }
      return transition(record, options);
    };

    // Act
    const answer = await http(decisions(job.sessionId, job.runId));

    // Assess: no wait for an end that nobody will write.
    expect(answer.statusCode, String(answer.body)).toBe(404);
    expect(JSON.parse(String(answer.body))).toMatchObject({ code: 'paused-run-not-found' });
    expect(payments).toEqual([]);
  });

  it('ends the resume job refused, not sent back to the queue to wait again', async () => {
    // Prepare
    const stack = await newStack(server, endpoints, { DELIVERY_MODE: 'direct' });
    const { resume, reads } = await orphanedRun(stack, 'gone-job');

    // Act
    const done = await stack.handlers.worker(
      eventOf(stack, resume('r-gone'), 'r-gone'),
      contextFor(60_000),
    );

    // Assess
    expect(done.batchItemFailures).toEqual([]);
    expect(reads.count).toBeLessThanOrEqual(4);
    expect(payments).toEqual([]);
  });
});

describe('one WebSocket job', () => {
  it('reads its session once (the turn loads it under its lease; the job reads no copy)', async () => {
    // Prepare: the session exists and is alice's, as the front door leaves it.
    const stack = await newStack(
      server,
      endpoints,
      { DELIVERY_MODE: 'direct' },
      { dynamoEndpoint: proxy.url },
    );
    await connect(stack, 'conn-once', 'alice');
    server.push({ text: 'Hello.' });
    await send(stack, 'conn-once', 'alice', {
      action: 'run',
      requestId: 'req-once',
      agent: 'payer',
      sessionId: 's-once',
      input: 'Hi',
    });
    proxy.log.length = 0;

    // Act
    await settle(stack);

    // Assess
    const sessionReads = proxy.log.filter(
      (r) =>
        r.operation === 'GetItem' &&
        r.body.includes('"SESSION#s-once"') &&
        r.body.includes('"META"'),
    );
    expect(sessionReads).toHaveLength(1);
    const view = clientView(eventsTo(endpoints.connections.messages('conn-once')));
    expect(view.terminals.map((e) => e.type)).toEqual(['run-finished']);
    const runId = view.terminals[0].runId;
    expect(await stack.deployed.runs.get('s-once', runId)).toMatchObject({
      status: 'completed',
      turnsBefore: 0,
    });
  });
});
