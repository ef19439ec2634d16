import { createHash } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { StreamEvent } from '../core/events.js';
import type { JsonValue } from '../core/session.js';
import type { Span } from '../core/tracer.js';
import { EventBatcher } from '../transport/batcher.js';
import { parseMessage } from '../transport/parse.js';
import { type ApprovalRequest, type RunJob, RunJobSchema } from '../transport/protocol.js';
import { processBatch } from './batch.js';
import { type AwsClients, clientsFor } from './clients.js';
import { deliveryFor } from './delivery.js';
import { queueUrl, sendJson } from './queues.js';
import type { Deployment } from './runtime.js';

/** SQS bodies are up to 256 KB; a job carries at most a 96 KB input. */
const MAX_JOB_BYTES = 256 * 1024;
const MAX_LAMBDA_MS = 15 * 60_000;

type Outcome = Extract<StreamEvent, { type: 'run-finished' | 'run-paused' | 'run-error' }>;

/**
 * The run queue's consumer: each `run` / `resume` job is streamed through the runtime, its
 * events batched into `events` messages and delivered (events queue or straight to the
 * connections). A job runs once per requestId, however often SQS delivers it.
 */
export function createWorkerHandler(
  deployment: () => Promise<Deployment>,
  options: { clients?: AwsClients; logger?: Logger } = {},
) {
  const { logger } = options;
  let clients = options.clients;
  return async (event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const deployed = await deployment();
    clients ??= clientsFor(deployed.config);
    const ready = clients;
    // A claim outlives this invocation, so no redelivery runs the job while it still runs here.
    const holdMs = (context?.getRemainingTimeInMillis() ?? MAX_LAMBDA_MS) + 30_000;
    return processBatch(
      event,
      (record, span) => handleJob(deployed, ready, record, holdMs, span, logger),
      { logger, tracer: deployed.tracer, spanName: 'job' },
    );
  };
}

async function handleJob(
  deployed: Deployment,
  clients: AwsClients,
  record: SQSRecord,
  holdMs: number,
  span: Span,
  logger?: Logger,
): Promise<void> {
  const parsed = parseMessage(RunJobSchema, record.body, { maxBytes: MAX_JOB_BYTES });
  // A malformed job never gets better: failing it sends it to the DLQ after maxReceiveCount.
  if (!parsed.ok) throw new Error(`bad job: ${parsed.error.code}: ${parsed.error.message}`);
  const job = parsed.message;
  const { requestId, sessionId, runId, kind } = job;
  span.setAttributes({ requestId, sessionId, runId, job: kind, agent: job.agent });
  // requestIds are chosen by clients: scoped by session so two clients' ids never collide.
  const key = `job:${job.sessionId}:${job.requestId}`;
  const claim = await deployed.idempotency.claim(key, {
    fingerprint: fingerprintOf(job),
    inProgressMs: holdMs,
  });
  if (claim.outcome === 'completed') {
    logger?.info('job already ran', { requestId: job.requestId, runId: job.runId });
    return;
  }
  // Another instance runs it now: fail, so SQS offers it again once that one finished or lapsed.
  if (claim.outcome === 'in-progress') throw new Error(`job ${job.requestId} is in progress`);
  try {
    const outcome = await runJob(deployed, clients, job, logger);
    await deployed.idempotency.complete(key, claim.token, { status: outcome.type });
  } catch (err) {
    await deployed.idempotency.release(key, claim.token).catch(() => undefined);
    throw err;
  }
}

async function runJob(
  deployed: Deployment,
  clients: AwsClients,
  job: RunJob,
  logger?: Logger,
): Promise<Outcome> {
  const { runtime, runs, config } = deployed;
  const { sessionId, runId, principal } = job;
  const previous = await runs.get(sessionId, runId);
  const paused =
    job.kind === 'resume' ? await runtime.pausedRuns?.get(sessionId, runId) : undefined;
  const agent = job.kind === 'run' ? job.agent : (paused?.agent ?? job.agent ?? 'unknown');
  const createdAt = previous?.createdAt ?? Date.now();
  const base = { schemaVersion: 1 as const, runId, sessionId, agent, createdAt };
  await runs.put({ ...base, status: 'running', updatedAt: Date.now() });
  const delivery = deliveryFor({
    mode: config.DELIVERY_MODE,
    clients,
    connections: deployed.connections,
    eventsQueueUrl: config.EVENTS_QUEUE_URL,
    requester: job.connectionId,
    logger,
  });
  const batcher = new EventBatcher({
    sessionId,
    runId,
    sink: (message) => delivery.deliver(message),
    // A resumed run continues its seq, so clients and the events queue see no repeats.
    firstSeq: job.kind === 'resume' ? nextSeqOf(previous?.reply) : 0,
    // Longer windows send fewer messages per token at the cost of latency (docs/benchmarks.md).
    maxDelayMs: config.EVENT_BATCH_MAX_DELAY_MS,
  });
  const stream =
    job.kind === 'run'
      ? runtime.stream(job.agent, sessionId, job.input, { runId, principal })
      : runtime.resumeStream(sessionId, runId, job.decisions, { principal });
  let outcome: Outcome | undefined;
  for await (const event of stream) {
    await batcher.push(event);
    if (event.type === 'run-finished' || event.type === 'run-paused' || event.type === 'run-error')
      outcome = event;
  }
  await batcher.close();
  outcome ??= { type: 'run-error', runId, code: 'internal-error', message: 'The run ended early.' };
  const updatedAt = Date.now();
  if (outcome.type === 'run-finished') {
    await runs.put({ ...base, status: 'completed', reply: asJson(outcome.reply), updatedAt });
  } else if (outcome.type === 'run-error') {
    const error = { code: outcome.code, message: outcome.message };
    // A refused resume leaves the paused record as it was: keep its seq for the next try.
    const kept = previous?.reply === undefined ? {} : { reply: previous.reply };
    await runs.put({ ...base, status: 'failed', error, ...kept, updatedAt });
  } else {
    const reply = {
      status: 'paused',
      runId,
      sessionId,
      agent,
      interruptions: outcome.interruptions,
      nextSeq: batcher.nextSeq,
    };
    await runs.put({ ...base, status: 'paused', reply: asJson(reply), updatedAt });
    await announcePause(deployed, clients, sessionId, runId, agent, outcome);
  }
  logger?.info('job done', { requestId: job.requestId, runId, outcome: outcome.type });
  return outcome;
}

/** Tells whoever decides (back office, chat bot) that the run waits, if the queue exists. */
async function announcePause(
  deployed: Deployment,
  clients: AwsClients,
  sessionId: string,
  runId: string,
  agent: string,
  outcome: Extract<Outcome, { type: 'run-paused' }>,
): Promise<void> {
  if (!deployed.config.APPROVAL_REQUESTS_QUEUE_URL) return;
  const stored = await deployed.runtime.pausedRuns?.get(sessionId, runId);
  const request: ApprovalRequest = {
    sessionId,
    runId,
    agent,
    interruptions: outcome.interruptions,
    expiresAt: stored?.expiresAt ?? Date.now(),
  };
  await sendJson(
    clients.sqs,
    queueUrl(deployed.config, 'APPROVAL_REQUESTS_QUEUE_URL'),
    request,
    deployed.config.APPROVAL_REQUESTS_QUEUE_URL.endsWith('.fifo')
      ? { groupId: sessionId, deduplicationId: `${runId}.paused.${Date.now()}` }
      : undefined,
  );
}

function nextSeqOf(reply: unknown): number {
  const seq = (reply as { nextSeq?: unknown } | undefined)?.nextSeq;
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : 0;
}

/** A requestId reused for another job is refused by the idempotency store. */
function fingerprintOf(job: RunJob): string {
  const { enqueuedAt: _, ...rest } = job;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex');
}

/** Replies are plain JSON by construction (the runtime validated them); the store checks again. */
function asJson(value: unknown): JsonValue {
  return value as JsonValue;
}
