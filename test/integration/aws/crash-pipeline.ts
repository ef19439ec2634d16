import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { expect } from 'vitest';
import { drain } from '../../../lib/local/sqs.js';
import type { ScriptedModelServer } from '../../../lib/testing/index.js';
import type { DynamoProxy, DynamoRequest } from '../../helpers/faults/dynamo-proxy.js';
import { startWorkerProcess, workerEnvOf } from '../../helpers/faults/worker-process.js';
import { type Endpoints, newStack, type Stack } from './stack.js';

const AGENTS = fileURLToPath(new URL('../../helpers/faults/writer-agents.ts', import.meta.url));

/**
 * A stack whose worker runs in a child process SIGKILLed at a chosen DynamoDB request (held by
 * the proxy), then redelivered by SQS to the real worker handler in process.
 */
export function crashPipeline(
  server: ScriptedModelServer,
  endpoints: Endpoints,
  proxy: DynamoProxy,
) {
  /** Direct delivery, the writer agents' effects file, a run queue redelivering after 2 s. */
  async function pipeline(
    tag: string,
    env: Record<string, string> = {},
  ): Promise<{ stack: Stack; effectsFile: string }> {
    const effectsFile = join(mkdtempSync(join(tmpdir(), 'durable-')), `${tag}.txt`);
    const stack = await newStack(
      server,
      endpoints,
      {
        DELIVERY_MODE: 'direct',
        JOB_CLAIM_GRACE_SECONDS: '1',
        RUN_DEADLINE_MARGIN_SECONDS: '1',
        // The killed worker's lease lapses in 1 s, not 30 (renewed every third of it while held).
        SESSION_LEASE_SECONDS: '1',
        ...env,
      },
      { dynamoEndpoint: proxy.url, effectsFile, maxReceiveCount: 10 },
    );
    // The killed receive comes back after 2 s, as after a Lambda timeout.
    await stack.sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: stack.queues.run,
        Attributes: { VisibilityTimeout: '2' },
      }),
    );
    return { stack, effectsFile };
  }

  /** Runs the job in a worker process, SIGKILLs it at the first request `at` picks. */
  async function killAt(stack: Stack, effectsFile: string, at: (r: DynamoRequest) => boolean) {
    proxy.hold(at);
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
    await proxy.held;
    child.kill();
    await child.exited;
    proxy.hold(undefined);
    proxy.dropHeld();
  }

  /** The redeliveries, handled by the real worker handler in process, until the run completed. */
  async function redeliverUntilDone(
    stack: Stack,
    job: { sessionId: string; runId: string },
    // The dead worker's session lease (1 s here) must lapse before a rerun of an unsaved turn.
    timeout = 30_000,
  ) {
    await expect
      .poll(
        async () => {
          await drain(stack.sqs, stack.queues.run, stack.handlers.worker as never, {
            retryDelayMs: () => 500,
          });
          return (await stack.deployed.runs.get(job.sessionId, job.runId))?.status;
        },
        { timeout, interval: 500 },
      )
      .toBe('completed');
  }

  return { pipeline, killAt, redeliverUntilDone };
}
