/*
 * The child side of `startWorkerProcess` (worker-process.ts): a Lambda-like worker in its own
 * process, so a test can SIGKILL it at any point of a job. It builds the deployment from its
 * environment exactly as functions/worker.ts does (config variables + the agents module named by
 * AGENTS_MODULE), then polls RUN_QUEUE_URL with the local event-source poller until killed.
 * It writes one JSON line per step on stdout: {"type":"ready"}, {"type":"batch",...}.
 */
import { pathToFileURL } from 'node:url';
import type { SQSEvent } from 'aws-lambda';
import { retryDelaySeconds } from '../../../lib/aws/adapters/sqs-queues.js';
import { createWorkerHandler } from '../../../lib/aws/handlers/worker.js';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import { deploymentFor } from '../../../lib/aws/wiring/deployment.js';
import { localSqsClient, startPoller } from '../../../lib/local/sqs.js';

const env = process.env;
const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const entry = await import(pathToFileURL(env.AGENTS_MODULE as string).href);
const config = loadConfig(env, ['TABLE_NAME', 'RUN_QUEUE_URL', 'SQS_ENDPOINT']);
const deployment = deploymentFor(entry, ['TABLE_NAME'], env);
// Built before the first poll, as Lambda's init phase: an invocation's deadline is its job's
// alone, not also the module loading and transpiling of a cold child under load.
await deployment();
const handler = createWorkerHandler(deployment);
const remainingMs = Number(env.WORKER_REMAINING_MS ?? 15 * 60_000);
startPoller(
  localSqsClient(config.SQS_ENDPOINT as string),
  config.RUN_QUEUE_URL as string,
  async (event: SQSEvent) => {
    // Each invocation has its own deadline, as on Lambda.
    const deadline = Date.now() + remainingMs;
    say({ type: 'batch', messageIds: event.Records.map((r) => r.messageId) });
    const result = await handler(event, {
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    });
    say({ type: 'batch-done', failed: result.batchItemFailures.map((f) => f.itemIdentifier) });
    return result;
  },
  {
    batchSize: 1,
    waitSeconds: 0,
    retryDelayMs: (receives) => retryDelaySeconds(receives, config) * 1000,
    onError: (err) => say({ type: 'poll-error', error: String(err) }),
  },
);
say({ type: 'ready' });
