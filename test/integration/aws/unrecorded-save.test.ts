import { describe, expect, it } from 'vitest';
import { clientView, effects, writerJob, writerModel } from '../../helpers/faults/jobs.js';
import { contextFor, recordOf } from '../../helpers/faults/sqs-records.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { crashPipeline } from './crash-pipeline.js';
import { connect, type Stack, useDynamoProxy, useEndpoints } from './stack.js';

const server = useScriptedModelServer({ fallback: writerModel });
const endpoints = useEndpoints();
const proxy = useDynamoProxy();
const { pipeline } = crashPipeline(server, endpoints, proxy);

/**
 * An earlier attempt that stored its turn and died before its first events message: the run
 * record was never written (the batcher had not flushed), so only the session knows. Played
 * here without timing luck: the turn runs through the runtime alone, then the job comes back.
 */
async function storedWithoutRecord(stack: Stack, job: ReturnType<typeof writerJob>) {
  const events = stack.deployed.runtime.stream(job.agent, job.sessionId, job.input, {
    principal: job.principal,
    runId: job.runId,
  });
  for await (const _ of events);
  expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toBeUndefined();
}

function redelivery(stack: Stack, job: object) {
  const message = {
    MessageId: 'm-1',
    ReceiptHandle: 'rh-1',
    Body: JSON.stringify(job),
    Attributes: { MessageGroupId: 's' },
  };
  return stack.handlers.worker(
    { Records: [recordOf(message, stack.queues.run, 2)] },
    contextFor(60_000),
  );
}

describe('worker: a redelivered job whose turn was stored before any run record', () => {
  it('answers the saved reply without calling the model or the tool again', async () => {
    // Prepare
    const { stack, effectsFile } = await pipeline('unrecorded');
    await connect(stack, 'conn-u', 'alice');
    const job = writerJob('job-u', 'conn-u');
    await storedWithoutRecord(stack, job);
    const before = server.requests.length;

    // Act
    await redelivery(stack, job);

    // Assess
    expect(server.requests.length).toBe(before);
    expect(effects(effectsFile)).toEqual(['job-u']);
    expect((await stack.deployed.runtime.sessions.load(job.sessionId))?.data.turns).toBe(1);
    const view = clientView(endpoints.connections.messages('conn-u'));
    expect(view.terminals).toEqual([
      expect.objectContaining({
        type: 'run-finished',
        reply: expect.objectContaining({ text: 'Wrote job-u.' }),
      }),
    ]);
    expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
      status: 'completed',
      reply: { text: 'Wrote job-u.' },
    });
  });

  it('sends the lost run-paused and records the pause, without a model call', async () => {
    // Prepare
    const { stack, effectsFile } = await pipeline('unrecorded-pause');
    await connect(stack, 'conn-p', 'alice');
    const job = { ...writerJob('job-p', 'conn-p'), agent: 'approving-writer' };
    await storedWithoutRecord(stack, job);
    const before = server.requests.length;

    // Act
    await redelivery(stack, job);

    // Assess
    expect(server.requests.length).toBe(before);
    expect(effects(effectsFile)).toEqual([]);
    const view = clientView(endpoints.connections.messages('conn-p'));
    expect(view.terminals).toEqual([
      expect.objectContaining({
        type: 'run-paused',
        interruptions: [
          expect.objectContaining({ kind: 'tool-approval', toolName: 'append_line' }),
        ],
      }),
    ]);
    expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
      status: 'paused',
    });
    expect(await stack.deployed.runtime.pausedRuns?.get(job.sessionId, job.runId)).toMatchObject({
      status: 'pending',
    });
  });
});
