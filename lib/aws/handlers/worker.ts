import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { UsageTally } from '../../app/fair-use.js';
import { clearJob } from '../../app/jobs/clear-job.js';
import { claimJob } from '../../app/jobs/job-claim.js';
import { type JobResult, runJob } from '../../app/jobs/run-job.js';
import type { JobPorts } from '../../app/ports/jobs.js';
import type { Span } from '../../core/tracer.js';
import { parseMessage } from '../../transport/parse.js';
import { RunJobSchema } from '../../transport/protocol.js';
import { type AwsClients, clientsFor } from '../adapters/clients.js';
import { deliveryFor } from '../adapters/delivery.js';
import { endQueuedRun } from '../adapters/fair-use-runs.js';
import { countMetric, emfMetrics } from '../adapters/job-metrics.js';
import { announcePause } from '../adapters/pause-announcer.js';
import { retryAfter, retryDelaySeconds } from '../adapters/sqs-queues.js';
import type { FunctionLogger as Logger } from '../middleware/json-logger.js';
import { processBatch } from '../middleware/sqs-batch.js';
import type { Deployment } from '../wiring/deployment.js';
import { RunTimeout } from '../wiring/errors.js';

/** SQS bodies are up to 256 KB; a job carries at most a 96 KB input. */
const MAX_JOB_BYTES = 256 * 1024;
const MAX_LAMBDA_MS = 15 * 60_000;
/** Post-turn steps stop retrying this long before the function's end. */
const FINAL_MS = 2_000;

type Remaining = Pick<Context, 'getRemainingTimeInMillis'>;

/**
 * The run queue's consumer: each `run` / `resume` job is streamed through the runtime, its
 * events batched into `events` messages and delivered (events queue or straight to the
 * connections). A job runs once per requestId, however often SQS delivers it; a job whose turn
 * was stored is never run again. A failed job is made visible again after a short backoff
 * (`JOB_RETRY_*`), not the queue's visibility timeout.
 */
export function createWorkerHandler(
  deployment: () => Promise<Deployment>,
  options: { clients?: AwsClients; logger?: Logger } = {},
) {
  const { logger } = options;
  let clients = options.clients;
  return async (event: SQSEvent, context?: Remaining) => {
    const deployed = await deployment();
    clients ??= clientsFor(deployed.config);
    const ready = clients;
    const deadline = Date.now() + (context?.getRemainingTimeInMillis() ?? MAX_LAMBDA_MS);
    return processBatch(
      event,
      (record, span) =>
        withBackoff(deployed, ready, record, logger, () =>
          handleJob(deployed, ready, record, deadline, span, logger),
        ),
      { logger, tracer: deployed.tracer, spanName: 'job' },
    );
  };
}

/** A failed record comes back after the backoff of its receive count, then fails the batch item. */
async function withBackoff(
  deployed: Deployment,
  clients: AwsClients,
  record: SQSRecord,
  logger: Logger | undefined,
  handle: () => Promise<void>,
): Promise<void> {
  try {
    await handle();
  } catch (err) {
    const receives = Number(record.attributes.ApproximateReceiveCount ?? '1');
    const seconds = retryDelaySeconds(receives, deployed.config);
    await retryAfter(clients.sqs, record, deployed.config, seconds);
    countMetric(logger, 'JobRetries', { messageId: record.messageId, receives, seconds });
    throw err;
  }
}

/** Why a job is handed back to the queue without an error of its own. */
class JobRetry extends Error {
  override name = 'JobRetry';
}

async function handleJob(
  deployed: Deployment,
  clients: AwsClients,
  record: SQSRecord,
  deadline: number,
  span: Span,
  logger?: Logger,
): Promise<void> {
  const parsed = parseMessage(RunJobSchema, record.body, { maxBytes: MAX_JOB_BYTES });
  // A malformed job never gets better: failing it sends it to the DLQ after maxReceiveCount.
  if (!parsed.ok) throw new Error(`bad job: ${parsed.error.code}: ${parsed.error.message}`);
  const job = parsed.message;
  const { requestId, sessionId, runId, kind } = job;
  span.setAttributes({
    requestId,
    sessionId,
    runId,
    job: kind,
    ...(job.kind === 'clear' ? {} : { agent: job.agent }),
  });
  const ports = jobPorts(deployed, clients, logger);
  // The claim outlives this invocation, so no redelivery runs the job while it still runs here.
  const claim = await claimJob(deployed.idempotency, job, {
    inProgressMs: deadline - Date.now() + deployed.config.JOB_CLAIM_GRACE_SECONDS * 1000,
    metrics: ports.metrics,
  });
  if (claim.outcome === 'completed') {
    logger?.info('job already ran', { requestId, runId });
    // An attempt that completed and died before its end was reported leaves its lease behind.
    await endQueuedRun(deployed, job, new UsageTally(), true, logger);
    return;
  }
  // Another instance runs it now: fail, so SQS offers it again once that one finished or lapsed.
  if (claim.outcome === 'in-progress') throw new JobRetry(`job ${requestId} is in progress`);
  const receives = Number(record.attributes.ApproximateReceiveCount ?? '1');
  const margin = deployed.config.RUN_DEADLINE_MARGIN_SECONDS * 1000;
  const timer = new AbortController();
  const stop = setTimeout(
    () => timer.abort(new RunTimeout()),
    Math.max(0, deadline - margin - Date.now()),
  );
  let result: JobResult | undefined;
  const usage = new UsageTally();
  try {
    result =
      job.kind === 'clear'
        ? await clearJob(ports, job, logger)
        : await runJob({
            ports,
            job,
            logger,
            signal: timer.signal,
            until: deadline - FINAL_MS,
            lastAttempt: receives >= deployed.config.JOB_MAX_RECEIVES,
            redelivered: receives > 1,
            retryInSeconds: retryDelaySeconds(receives, deployed.config),
            usage,
          });
  } catch (err) {
    // The turn was not stored: give the job back so a retry runs it.
    await claim.giveBack();
    throw err;
  } finally {
    clearTimeout(stop);
    await endQueuedRun(deployed, job, usage, result?.done === true, logger);
  }
  if (!result.done) {
    await claim.giveBack();
    throw new JobRetry(`job ${requestId} will be retried: ${result.reason}`);
  }
  await claim.complete(result.status, deadline - FINAL_MS);
}

/** The job runner's ports on AWS: the deployment's runtime and stores, delivery, SQS, EMF. */
export function jobPorts(deployed: Deployment, clients: AwsClients, logger?: Logger): JobPorts {
  const { config, connections } = deployed;
  return {
    runtime: deployed.runtime,
    runs: deployed.runs,
    events: deployed.events,
    delivery: (job) =>
      deliveryFor({
        mode: config.DELIVERY_MODE,
        clients,
        connections,
        ...(config.EVENTS_QUEUE_URL ? { eventsQueueUrl: config.EVENTS_QUEUE_URL } : {}),
        ...(job.connectionId ? { requester: job.connectionId } : {}),
        owner: job.principal,
        ...(logger ? { logger } : {}),
      }),
    announcePause: (job, agent, outcome) =>
      announcePause(deployed, clients, job.sessionId, job.runId, agent, outcome),
    metrics: emfMetrics(logger),
    logger,
    batchMaxDelayMs: config.EVENT_BATCH_MAX_DELAY_MS,
    batchMinDelayMs: config.EVENT_BATCH_MIN_DELAY_MS,
  };
}
