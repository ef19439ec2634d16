import { beforeEach, describe, expect, it } from 'vitest';
import { throttleNext } from '../../helpers/faults/dynamo-proxy.js';
import { clientView } from '../../helpers/faults/jobs.js';
import { contextFor, recordOf } from '../../helpers/faults/sqs-records.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { payments } from './setup.js';
import { connect, newStack, type Stack, useDynamoProxy, useEndpoints } from './stack.js';

const server = useScriptedModelServer();
const endpoints = useEndpoints();
const proxy = useDynamoProxy();
beforeEach(() => {
  payments.length = 0;
});

const payCall = { id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 5 } };

/** An SQS event of one job, as the run queue would hand it over (receive count 1). */
function eventOf(stack: Stack, body: object, id: string) {
  const message = {
    MessageId: id,
    ReceiptHandle: `rh-${id}`,
    Body: JSON.stringify(body),
    Attributes: { MessageGroupId: 's' },
  };
  return { Records: [recordOf(message, stack.queues.run, 1)] };
}

/** Runs the payer until it pauses for approval of the payment. */
async function pausedRun(stack: Stack, tag: string) {
  await connect(stack, `conn-${tag}`, 'alice');
  server.push({ toolCalls: [payCall] }, { text: 'Paid Bob.' });
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

describe('worker: resumes under faults', () => {
  it('runs one of two concurrent duplicate resumes; the run ends completed with no run-error', async () => {
    // Prepare
    const stack = await newStack(server, endpoints, { DELIVERY_MODE: 'direct' });
    const { job, resume } = await pausedRun(stack, 'dup');

    // Act
    const results = await Promise.all(
      ['r-1', 'r-2'].map((id) =>
        stack.handlers.worker(eventOf(stack, resume(id), id), contextFor(60_000)),
      ),
    );

    // Assess
    expect(results.flatMap((r) => r.batchItemFailures)).toEqual([]);
    expect(payments).toEqual([{ to: 'bob', amount: 5 }]);
    const view = clientView(endpoints.connections.messages('conn-dup'));
    expect(view.terminals.map((e) => e.type)).toEqual(['run-paused', 'run-finished']);
    expect(view.seqs).toEqual(view.seqs.map((_, i) => i));
    expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
      status: 'completed',
    });
  });

  it('reports a resume whose paused-run delete failed after the session save as finished', async () => {
    // Prepare
    const stack = await newStack(
      server,
      endpoints,
      { DELIVERY_MODE: 'direct' },
      { dynamoEndpoint: proxy.url },
    );
    const { job, resume } = await pausedRun(stack, 'del');
    proxy.setRule(throttleNext((r) => r.operation === 'DeleteItem' && r.body.includes('PAUSED#')));

    // Act
    const result = await stack.handlers.worker(
      eventOf(stack, resume('r-del'), 'r-del'),
      contextFor(60_000),
    );

    // Assess
    expect(result.batchItemFailures).toEqual([]);
    expect(payments).toHaveLength(1);
    const view = clientView(endpoints.connections.messages('conn-del'));
    expect(view.terminals).toEqual([
      expect.objectContaining({ type: 'run-paused' }),
      expect.objectContaining({
        type: 'run-finished',
        reply: expect.objectContaining({ text: 'Paid Bob.' }),
      }),
    ]);
    expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
      status: 'completed',
    });
    // The delete is best-effort after the save: the run is left claimed, never pending again (its
    // claim lapses, and a takeover finds the session stored and refuses to run it twice).
    expect(await stack.deployed.runtime.pausedRuns?.get(job.sessionId, job.runId)).toMatchObject({
      status: 'resuming',
    });
    const session = await stack.deployed.runtime.sessions.load(job.sessionId);
    expect(session?.data.paused).toBeUndefined();
  });

  it('keeps a run paused when its resume names an unknown call', async () => {
    // Prepare
    const stack = await newStack(server, endpoints, { DELIVERY_MODE: 'direct' });
    const { job, resume } = await pausedRun(stack, 'bad');
    const wrong = { ...resume('r-bad'), decisions: [{ id: 'call_nope', status: 'approved' }] };

    // Act
    await stack.handlers.worker(eventOf(stack, wrong, 'r-bad'), contextFor(60_000));
    const afterRefusal = await stack.deployed.runs.get(job.sessionId, job.runId);
    await stack.handlers.worker(eventOf(stack, resume('r-good'), 'r-good'), contextFor(60_000));

    // Assess
    expect(afterRefusal).toMatchObject({ status: 'paused', error: { code: 'invalid-decisions' } });
    expect(payments).toHaveLength(1);
    const view = clientView(endpoints.connections.messages('conn-bad'));
    expect(view.terminals.map((e) => e.code ?? e.type)).toEqual([
      'run-paused',
      'invalid-decisions',
      'run-finished',
    ]);
    expect(view.seqs).toEqual(view.seqs.map((_, i) => i));
    expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
      status: 'completed',
    });
  });
});
