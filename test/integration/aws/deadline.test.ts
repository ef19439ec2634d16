import { describe, expect, it } from 'vitest';
import { clientView, enqueue } from '../../helpers/faults/jobs.js';
import { contextFor, receiveOne, recordOf } from '../../helpers/faults/sqs-records.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { connect, newStack, useEndpoints } from './stack.js';

const server = useScriptedModelServer();
const endpoints = useEndpoints();

const MARGIN_S = 1;
const REMAINING_MS = 3_000;

describe('worker: the function deadline', () => {
  it('stops a run slower than the remaining time, announces run-retrying (not a terminal event); the retry comes back in seconds and ends it with its one terminal event', async () => {
    // Prepare
    const stack = await newStack(server, endpoints, {
      DELIVERY_MODE: 'direct',
      RUN_DEADLINE_MARGIN_SECONDS: String(MARGIN_S),
      JOB_RETRY_BASE_SECONDS: '1',
    });
    await connect(stack, 'conn-t', 'alice');
    server.push({ text: 'Too late.', delayMs: 20_000 }, { text: 'In time.' });
    const job = {
      kind: 'run',
      requestId: 'req-t',
      principal: 'alice',
      agent: 'payer',
      sessionId: 's-t',
      runId: 'run-t',
      input: 'Hi',
      connectionId: 'conn-t',
      enqueuedAt: Date.now(),
    };
    await enqueue(stack.sqs, stack.queues.run, job);
    const first = await receiveOne(stack.sqs, stack.queues.run, 5_000);

    // Act
    const started = Date.now();
    const failed = await stack.handlers.worker(
      { Records: [recordOf(first!, stack.queues.run, 1)] },
      contextFor(REMAINING_MS),
    );
    const tookMs = Date.now() - started;
    const timedOut = await stack.deployed.runs.get(job.sessionId, job.runId);
    const again = await receiveOne(stack.sqs, stack.queues.run, 10_000);
    const backAfterMs = Date.now() - started;
    const second = await stack.handlers.worker(
      { Records: [recordOf(again!, stack.queues.run, 2)] },
      contextFor(60_000),
    );

    // Assess
    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: first!.MessageId }]);
    expect(tookMs).toBeGreaterThanOrEqual(REMAINING_MS - MARGIN_S * 1000 - 50);
    expect(tookMs).toBeLessThan(REMAINING_MS);
    expect(timedOut).toMatchObject({ status: 'timed-out', error: { code: 'run-timeout' } });
    // Visible again after the 1 s backoff, not the queue's 30 s visibility timeout.
    expect(again?.MessageId).toBe(first!.MessageId);
    expect(backAfterMs).toBeLessThan(REMAINING_MS + 5_000);
    expect(second.batchItemFailures).toEqual([]);
    const view = clientView(endpoints.connections.messages('conn-t'));
    // One terminal event for the run: the timed-out attempt sent a non-terminal run-retrying.
    expect(view.terminals.map((e) => e.type)).toEqual(['run-finished']);
    expect(view.events.filter((e) => e.type === 'run-retrying')).toEqual([
      expect.objectContaining({ code: 'run-timeout', retryInSeconds: 1 }),
    ]);
    expect(view.seqs).toEqual(view.seqs.map((_, i) => i));
    expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
      status: 'completed',
      reply: { text: 'In time.' },
    });
    const session = await stack.deployed.runtime.sessions.load(job.sessionId);
    expect(session?.data.turns).toBe(1);
  }, 30_000);
});
