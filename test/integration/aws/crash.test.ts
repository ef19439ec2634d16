import { describe, expect, it } from 'vitest';
import { afterSessionSave } from '../../helpers/faults/dynamo-proxy.js';
import { clientView, effects, enqueue, writerJob, writerModel } from '../../helpers/faults/jobs.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { crashPipeline } from './crash-pipeline.js';
import { connect, useDynamoProxy, useEndpoints } from './stack.js';

const server = useScriptedModelServer({ fallback: writerModel });
const endpoints = useEndpoints();
const proxy = useDynamoProxy();
const { pipeline, killAt, redeliverUntilDone } = crashPipeline(server, endpoints, proxy);

describe('worker: a process killed after the session save', () => {
  it('never runs the stored turn again on redelivery, and the client still gets its end', async () => {
    // Prepare
    const { stack, effectsFile } = await pipeline('crash');
    await connect(stack, 'conn-k', 'alice');
    const job = writerJob('job-k', 'conn-k');
    await enqueue(stack.sqs, stack.queues.run, job);

    // Act: kill it at its first store request after the save, then let the queue redeliver.
    await killAt(
      stack,
      effectsFile,
      afterSessionSave(() => true),
    );
    const afterCrash = { effects: effects(effectsFile), requests: server.requests.length };
    await redeliverUntilDone(stack, job);

    // Assess: no model request after the save. A loaded machine may time the child's first
    // attempt out and retry it before the save: more requests, still none after.
    expect(afterCrash.effects).toEqual(['job-k']);
    expect(afterCrash.requests).toBeGreaterThanOrEqual(2);
    expect(effects(effectsFile)).toEqual(['job-k']);
    expect(server.requests).toHaveLength(afterCrash.requests);
    const session = await stack.deployed.runtime.sessions.load(job.sessionId);
    expect(session?.data.turns).toBe(1);
    const view = clientView(endpoints.connections.messages('conn-k'));
    // The recovered run-finished carries the reply the session saved with the turn.
    expect(view.terminals).toEqual([
      expect.objectContaining({
        type: 'run-finished',
        reply: expect.objectContaining({ status: 'completed', text: 'Wrote job-k.' }),
      }),
    ]);
    expect(await stack.deployed.runs.get(job.sessionId, job.runId)).toMatchObject({
      reply: { text: 'Wrote job-k.' },
    });
  }, 90_000);
});
