import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { type ExpectStatic, expect, inject } from 'vitest';
import { drain } from '../../../lib/local/sqs.js';
import {
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  startScriptedModelServer,
} from '../../../lib/testing/index.js';
import { childSlots } from '../../helpers/child-slots.js';
import {
  type DynamoProxy,
  type DynamoRequest,
  startDynamoProxy,
} from '../../helpers/faults/dynamo-proxy.js';
import { startWorkerProcess, workerEnvOf } from '../../helpers/faults/worker-process.js';
import { type Endpoints, newStack, type Stack, startEndpoints, stopEndpoints } from './stack.js';

const AGENTS = fileURLToPath(new URL('../../helpers/faults/writer-agents.ts', import.meta.url));
/**
 * The killed invocation's deadline. Its run times out 1 s before (RUN_DEADLINE_MARGIN_SECONDS),
 * so this is its whole budget to reach the held request on a loaded machine; its job claim (no
 * grace here) keeps a redelivery out until it passed, so it is also what each kill test waits.
 */
const KILLED_REMAINING_MS = 10_000;
/**
 * Redeliveries find the claim in progress every 0.5 s until it lapses: each is a receive, so the
 * redrive limit must outlast the deadline (10 would dead-letter the job after ~5 s).
 */
const MAX_RECEIVES = 1000;

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
        // The killed worker does nothing past its deadline: the claim lapses with it.
        JOB_CLAIM_GRACE_SECONDS: '0',
        RUN_DEADLINE_MARGIN_SECONDS: '1',
        // The killed worker's lease lapses in 1 s, not 30 (renewed every third of it while held).
        SESSION_LEASE_SECONDS: '1',
        ...env,
      },
      { dynamoEndpoint: proxy.url, effectsFile, maxReceiveCount: MAX_RECEIVES },
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
      remainingMs: KILLED_REMAINING_MS,
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
    // The dead worker's claim lapses at its deadline (its session lease, 1 s, before that).
    timeout = KILLED_REMAINING_MS + 30_000,
    // A concurrent case passes its own: the global one may have lost its current test.
    poll: ExpectStatic = expect,
  ) {
    await poll
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

/** Worker processes alive at once across a file's concurrent cases: two cores, bounded CPU. */
const withChildSlots = childSlots(2);

/**
 * One concurrent case's own world: its model server, connections endpoints, DynamoDB proxy and
 * stack, so no case reads another's model requests, proxy log, holds or posted messages.
 */
export async function startCrashWorld(
  expect: ExpectStatic,
  tag: string,
  env: Record<string, string> = {},
  serverOptions: ScriptedModelServerOptions = {},
) {
  const server = await startScriptedModelServer(serverOptions);
  const endpoints = await startEndpoints();
  const proxy = await startDynamoProxy(inject('dynaliteEndpoint'));
  const crash = crashPipeline(server, endpoints, proxy);
  const { stack, effectsFile } = await crash.pipeline(tag, env);
  return {
    server,
    endpoints,
    proxy,
    stack,
    effectsFile,
    killAt: (at: (r: DynamoRequest) => boolean) =>
      withChildSlots(1, () => crash.killAt(stack, effectsFile, at)),
    redeliverUntilDone: (job: { sessionId: string; runId: string }) =>
      crash.redeliverUntilDone(stack, job, undefined, expect),
    async close() {
      await Promise.all([server.close(), stopEndpoints(endpoints), proxy.close()]);
    },
  };
}
