import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { drain } from '../../../lib/local/sqs.js';
import { afterSessionSave } from '../../helpers/faults/dynamo-proxy.js';
import { clientView, effects, enqueue, writerJob, writerModel } from '../../helpers/faults/jobs.js';
import { startWorkerProcess, workerEnvOf } from '../../helpers/faults/worker-process.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { connect, newStack, useDynamoProxy, useEndpoints } from './stack.js';

const server = useScriptedModelServer({ fallback: writerModel });
const endpoints = useEndpoints();
const proxy = useDynamoProxy();

const AGENTS = fileURLToPath(new URL('../../helpers/faults/writer-agents.ts', import.meta.url));

describe('worker: a process killed after the session save', () => {
  it('never runs the stored turn again on redelivery, and the client still gets its end', async () => {
    // Prepare
    const effectsFile = join(mkdtempSync(join(tmpdir(), 'crash-')), 'effects.txt');
    const stack = await newStack(
      server,
      endpoints,
      {
        DELIVERY_MODE: 'direct',
        JOB_CLAIM_GRACE_SECONDS: '1',
        RUN_DEADLINE_MARGIN_SECONDS: '1',
      },
      { dynamoEndpoint: proxy.url, effectsFile, maxReceiveCount: 10 },
    );
    // The crashed receive comes back after 2 s, as after a Lambda timeout.
    await stack.sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: stack.queues.run,
        Attributes: { VisibilityTimeout: '2' },
      }),
    );
    await connect(stack, 'conn-k', 'alice');
    const job = writerJob('job-k', 'conn-k');
    await enqueue(stack.sqs, stack.queues.run, job);
    proxy.hold(afterSessionSave(() => true));
    const child = startWorkerProcess({
      agentsModule: AGENTS,
      env: workerEnvOf(stack.deployed.config, {
        DYNAMODB_ENDPOINT: proxy.url,
        MODEL_URL: server.url,
        EFFECTS_FILE: effectsFile,
      }),
      remainingMs: 4_000,
    });
    await child.ready;

    // Act: kill it at its first store request after the save, then let the queue redeliver.
    await proxy.held;
    child.kill();
    await child.exited;
    proxy.hold(undefined);
    proxy.dropHeld();
    const afterCrash = { effects: effects(effectsFile), requests: server.requests.length };
    await expect
      .poll(
        async () => {
          await drain(stack.sqs, stack.queues.run, stack.handlers.worker as never, {
            retryDelayMs: () => 500,
          });
          return (await stack.deployed.runs.get(job.sessionId, job.runId))?.status;
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe('completed');

    // Assess
    expect(afterCrash).toEqual({ effects: ['job-k'], requests: 2 });
    expect(effects(effectsFile)).toEqual(['job-k']);
    expect(server.requests).toHaveLength(2);
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
  }, 60_000);
});
