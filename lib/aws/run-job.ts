import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { UsageTally } from '../app/fair-use.js';
import type { StreamEvent } from '../core/events.js';
import { bindingOf, isOwner } from '../core/ownership.js';
import type { JsonValue, SessionData } from '../core/session.js';
import { EventBatcher } from '../transport/batcher.js';
import type { Delivery } from '../transport/delivery.js';
import type { TurnJob } from '../transport/protocol.js';
import { afterTurn, countMetric } from './after-turn.js';
import type { AwsClients } from './clients.js';
import { deliveryFor } from './delivery.js';
import { announcePause } from './pause-announce.js';
import { asJson, RunLog } from './run-log.js';
import type { Deployment } from './runtime.js';
import { finished, storedEarlier, storedReply } from './stored-turn.js';

export type Outcome = Extract<StreamEvent, { type: 'run-finished' | 'run-paused' | 'run-error' }>;

/** How an attempt ended: done (the job is complete), or to be retried soon. */
export type JobResult =
  | { readonly done: true; readonly status: string }
  | { readonly done: false; readonly reason: string };

/** Failures a later attempt may not meet; retried while receives remain, before any terminal event. */
const RETRYABLE = new Set([
  'store-throttled',
  'session-busy',
  'session-conflict',
  'model-error',
  'model-rate-limited',
]);
/** A second resume of a run: the first (or an earlier attempt of this job) owns its outcome. */
const REFUSED = new Set(['run-already-resumed', 'paused-run-not-found']);

export interface JobContext {
  readonly deployed: Deployment;
  readonly clients: AwsClients;
  readonly job: TurnJob;
  readonly logger?: Logger | undefined;
  /** Aborted a safe margin before the function's deadline (reason: RunTimeout). */
  readonly signal: AbortSignal;
  /** Epoch ms after which post-turn steps stop retrying. */
  readonly until: number;
  /** This is the message's last receive: a retryable failure is reported, not retried. */
  readonly lastAttempt: boolean;
  /** The message was received before: an earlier attempt may have stored the turn and died. */
  readonly redelivered: boolean;
  /** Fair use: the attempt's model tokens, from its events (lib/app/fair-use.ts). */
  readonly usage?: UsageTally;
}

/**
 * One attempt of a run or resume job. Never throws once the turn's outcome is known (the turn
 * was stored, or its run-error sent): what follows is retried in place (`afterTurn`).
 */
export async function runJob(ctx: JobContext): Promise<JobResult> {
  const { deployed, job } = ctx;
  const { runtime, runs } = deployed;
  const { sessionId, runId } = job;
  const previous = await runs.get(sessionId, runId);
  if (previous && finished(previous, job)) return { done: true, status: previous.status };
  const paused =
    job.kind === 'resume' ? await runtime.pausedRuns?.get(sessionId, runId) : undefined;
  const agent =
    job.kind === 'run' ? job.agent : (paused?.agent ?? job.agent ?? previous?.agent ?? 'unknown');
  const session = await runtime.sessions.load(sessionId);
  const base = {
    schemaVersion: 1 as const,
    runId,
    sessionId,
    ...jobBinding(session?.data, job.principal),
    agent,
    createdAt: previous?.createdAt ?? Date.now(),
  };
  const log = new RunLog(
    runs,
    base,
    previous,
    { turnsBefore: session?.data.turns ?? 0 },
    { logger: ctx.logger, until: ctx.until },
  );
  if (ctx.redelivered) {
    const earlier = storedEarlier(job, previous, session?.data);
    if (earlier === 'completed') return recover(ctx, log, storedReply(session?.data, runId, ''));
    if (earlier === 'paused') {
      const run = await runtime.pausedRuns?.get(sessionId, runId);
      if (run) return recoverPause(ctx, log, run.interruptions);
    }
  }
  return stream(ctx, log);
}

/**
 * The session life a job's run record belongs to: the session's, when the job's principal owns it;
 * otherwise (gone since the job was queued, or another's now) a new one of the principal's, which
 * the turn gives the session if it creates it. Never the life of another's session.
 */
function jobBinding(session: SessionData | undefined, principal: string) {
  if (session && isOwner(session.owner, principal)) return bindingOf(session);
  return { owner: principal, incarnation: randomUUID() };
}

async function stream(ctx: JobContext, log: RunLog): Promise<JobResult> {
  const { deployed, job } = ctx;
  const { runtime } = deployed;
  const { sessionId, runId, principal } = job;
  const state = { stored: false, terminalSent: false };
  const batcher = newBatcher(ctx, log, state, log.firstSeq);
  const options = { principal, signal: ctx.signal };
  const events =
    job.kind === 'run'
      ? runtime.stream(job.agent, sessionId, job.input, {
          ...options,
          // A session gone since the job was queued is created again in the record's life.
          ...(log.base.incarnation ? { incarnation: log.base.incarnation } : {}),
          runId,
          replay: replays(ctx, log),
        })
      : runtime.resumeStream(sessionId, runId, job.decisions, options);
  // run-started waits for the next event: a refused resume then sends nothing at all.
  let held: StreamEvent | undefined;
  let text = '';
  let outcome: Outcome | undefined;
  try {
    for await (const event of events) {
      ctx.usage?.observe(event);
      if (event.type === 'run-started') {
        held = event;
        continue;
      }
      if (event.type === 'text-delta') text += event.delta;
      if (event.type === 'run-error') {
        outcome = event;
        break;
      }
      if (event.type === 'run-finished' || event.type === 'run-paused') {
        state.stored = true;
        outcome = event;
      }
      if (held) await batcher.push(held);
      held = undefined;
      await batcher.push(event);
    }
  } catch (err) {
    // Past the save (the runtime's lease release, an earlier batch's failure): the turn stands.
    if (!state.stored) throw err;
    countMetric(ctx.logger, 'PostTurnStepFailures', {
      step: 'after-save',
      runId,
      error: String(err),
    });
  }
  outcome ??= { type: 'run-error', runId, code: 'internal-error', message: 'The run ended early.' };
  if (outcome.type === 'run-error') return ended(ctx, log, batcher, outcome, held, text);
  const nextSeq = await deliverOutcome(ctx, log, batcher, outcome, state);
  await recordOutcome(ctx, log, outcome, nextSeq);
  ctx.logger?.info('job done', { requestId: job.requestId, runId, outcome: outcome.type });
  return { done: true, status: outcome.type };
}

/**
 * Whether a run job reads its journal: only when an earlier attempt may have written one (a
 * redelivery, or a record an attempt moved past queued). A first delivery's tool calls are still
 * guarded by the journal's conditional start; a resume always replays (the runtime decides).
 */
function replays(ctx: JobContext, log: RunLog): boolean {
  const before = log.previous?.status;
  return ctx.redelivered || (before !== undefined && before !== 'queued');
}

interface StreamState {
  /** The turn is stored: nothing may fail the job any more. */
  stored: boolean;
  /** The message with the terminal event reached the delivery. */
  terminalSent: boolean;
}

/** The attempt's batcher: reserves seqs before each message; past the save it never fails. */
function newBatcher(
  ctx: JobContext,
  log: RunLog,
  state: StreamState,
  firstSeq: number,
): EventBatcher {
  const delivery = deliveryOf(ctx);
  const where = { logger: ctx.logger, runId: ctx.job.runId, until: ctx.until };
  return new EventBatcher({
    sessionId: ctx.job.sessionId,
    runId: ctx.job.runId,
    firstSeq,
    sink: async (message) => {
      try {
        await log.reserve(message.seq);
      } catch (err) {
        // Past the save the message goes out anyway: no later attempt reuses these seqs.
        if (!state.stored) throw err;
      }
      const sent = state.stored
        ? await afterTurn('delivery', () => delivery.deliver(message), where)
        : await delivery.deliver(message).then(() => true);
      if (sent && message.events.some((e) => TERMINAL.has(e.type))) state.terminalSent = true;
    },
    // Longer windows send fewer messages per token at the cost of latency (docs/benchmarks.md).
    maxDelayMs: ctx.deployed.config.EVENT_BATCH_MAX_DELAY_MS,
  });
}

const TERMINAL = new Set(['run-finished', 'run-paused', 'run-error']);

/**
 * Sends what is left; if the terminal event did not go out (the batcher broke on an earlier
 * message), sends it alone past every reserved seq. Answers the run's next seq.
 */
async function deliverOutcome(
  ctx: JobContext,
  log: RunLog,
  batcher: EventBatcher,
  outcome: Outcome,
  state: StreamState,
): Promise<number> {
  await closeQuietly(ctx, batcher);
  if (state.terminalSent) return batcher.nextSeq;
  const again = newBatcher(ctx, log, state, Math.max(batcher.nextSeq, log.reservedSeq));
  await again.push(outcome).catch(() => undefined);
  await closeQuietly(ctx, again);
  return again.nextSeq;
}

async function recordOutcome(
  ctx: JobContext,
  log: RunLog,
  outcome: Extract<Outcome, { type: 'run-finished' | 'run-paused' }>,
  nextSeq: number,
): Promise<void> {
  const { deployed, job } = ctx;
  const { sessionId, runId } = job;
  if (outcome.type === 'run-finished') {
    await log.end('completed', nextSeq, { reply: asJson(outcome.reply) });
    return;
  }
  const { agent } = log.base;
  const { interruptions } = outcome;
  const reply = { status: 'paused', runId, sessionId, agent, interruptions, nextSeq };
  await log.end('paused', nextSeq, { reply: asJson(reply) });
  await afterTurn(
    'pause-announcement',
    () => announcePause(deployed, ctx.clients, sessionId, runId, agent, outcome),
    { logger: ctx.logger, runId, until: ctx.until },
  );
}

/** A run-error: the turn was not stored (unless a resume stored it and failed right after). */
async function ended(
  ctx: JobContext,
  log: RunLog,
  batcher: EventBatcher,
  error: Extract<Outcome, { type: 'run-error' }>,
  held: StreamEvent | undefined,
  text: string,
): Promise<JobResult> {
  const { job } = ctx;
  const { runId } = job;
  const stored = job.kind === 'resume' ? await resumeStored(ctx, log) : undefined;
  if (stored) {
    // The session holds the resumed turn: its run-error would be false.
    if (REFUSED.has(error.code) && !ctx.redelivered) return refused(ctx, error);
    return recover(ctx, log, storedReply(stored, runId, text), batcher);
  }
  if (job.kind === 'resume' && REFUSED.has(error.code)) return refused(ctx, error);
  if (error.code === 'run-timeout') countMetric(ctx.logger, 'RunTimeouts', { runId });
  if (RETRYABLE.has(error.code) && !ctx.lastAttempt) {
    // No terminal event: the retry continues the run's seq and ends it.
    await batcher.flush().catch(() => undefined);
    if (log.running) await log.end('running', batcher.nextSeq);
    return { done: false, reason: error.code };
  }
  if (held) await batcher.push(held).catch(() => undefined);
  await batcher.push(error).catch(() => undefined);
  await closeQuietly(ctx, batcher);
  const status = error.code === 'run-timeout' ? 'timed-out' : await failedStatus(ctx);
  const kept = log.previous?.reply === undefined ? {} : { reply: log.previous.reply };
  const patch = { error: { code: error.code, message: error.message }, ...kept };
  await log.end(status, batcher.nextSeq, patch);
  ctx.logger?.info('job done', { requestId: job.requestId, runId, outcome: error.code });
  if (status === 'timed-out') return { done: false, reason: 'run-timeout' };
  return { done: true, status: 'run-error' };
}

/** A resume that failed with its paused run still waiting stays paused (it can be resumed). */
async function failedStatus(ctx: JobContext): Promise<'failed' | 'paused'> {
  if (ctx.job.kind !== 'resume') return 'failed';
  const run = await ctx.deployed.runtime.pausedRuns
    ?.get(ctx.job.sessionId, ctx.job.runId)
    .catch(() => undefined);
  return run?.status === 'pending' ? 'paused' : 'failed';
}

/** The resumed turn's session when it is stored, else undefined. */
async function resumeStored(ctx: JobContext, log: RunLog): Promise<SessionData | undefined> {
  const session = await ctx.deployed.runtime.sessions
    .load(ctx.job.sessionId)
    .catch(() => undefined);
  const paused = await ctx.deployed.runtime.pausedRuns
    ?.get(ctx.job.sessionId, ctx.job.runId)
    .catch(() => undefined);
  // Stored: the session's marker is gone while the run was still paused (claimed or pending), or
  // a resume of it was running (a takeover found it stored and deleted the paused run).
  if (!session) return undefined;
  const marked = session.data.paused?.some((p) => p.runId === ctx.job.runId) ?? false;
  return !marked && (!!paused || log.previous?.status === 'running') ? session.data : undefined;
}

/** A duplicate resume: the other one owns the run's events and record; this one sends nothing. */
function refused(ctx: JobContext, error: Extract<Outcome, { type: 'run-error' }>): JobResult {
  countMetric(ctx.logger, 'ResumesRefused', { runId: ctx.job.runId, code: error.code });
  return { done: true, status: 'refused' };
}

/**
 * The turn is stored but its end was lost (a crash, or a failure right after the save): record
 * it completed, drop the paused run of a resume, and send the run-finished it never sent.
 */
async function recover(
  ctx: JobContext,
  log: RunLog,
  stored: { text: string; output?: JsonValue },
  open?: EventBatcher,
): Promise<JobResult> {
  const { deployed, job } = ctx;
  const { sessionId, runId } = job;
  const where = { logger: ctx.logger, runId, until: ctx.until };
  countMetric(ctx.logger, 'TurnsRecovered', { runId, requestId: job.requestId });
  if (job.kind === 'resume') {
    await afterTurn(
      'paused-run-delete',
      async () => deployed.runtime.pausedRuns?.delete(sessionId, runId),
      where,
    );
  }
  const { agent } = log.base;
  const reply = { status: 'completed' as const, runId, sessionId, agent, ...stored };
  const batcher =
    open ??
    new EventBatcher({
      sessionId,
      runId,
      firstSeq: log.firstSeq,
      sink: (message) => deliveryOf(ctx).deliver(message),
    });
  await batcher.push({ type: 'run-finished', runId, reply }).catch(() => undefined);
  await closeQuietly(ctx, batcher);
  await log.end('completed', batcher.nextSeq, { reply: asJson(reply) });
  return { done: true, status: 'run-finished' };
}

/** The turn paused and was stored, but its run-paused was lost: send it, record and announce. */
async function recoverPause(
  ctx: JobContext,
  log: RunLog,
  interruptions: Extract<Outcome, { type: 'run-paused' }>['interruptions'],
): Promise<JobResult> {
  const { sessionId, runId } = ctx.job;
  countMetric(ctx.logger, 'TurnsRecovered', { runId, requestId: ctx.job.requestId });
  const outcome: Outcome = { type: 'run-paused', runId, sessionId, interruptions };
  const state = { stored: true, terminalSent: false };
  const batcher = newBatcher(ctx, log, state, log.firstSeq);
  const nextSeq = await deliverOutcome(ctx, log, batcher, outcome, state);
  await recordOutcome(ctx, log, outcome, nextSeq);
  return { done: true, status: 'run-paused' };
}

async function closeQuietly(ctx: JobContext, batcher: EventBatcher): Promise<void> {
  try {
    await batcher.close();
  } catch (err) {
    countMetric(ctx.logger, 'PostTurnStepFailures', {
      step: 'delivery',
      runId: ctx.job.runId,
      error: String(err),
    });
  }
}

function deliveryOf(ctx: JobContext): Delivery {
  const { config, connections } = ctx.deployed;
  return deliveryFor({
    mode: config.DELIVERY_MODE,
    clients: ctx.clients,
    connections,
    ...(config.EVENTS_QUEUE_URL ? { eventsQueueUrl: config.EVENTS_QUEUE_URL } : {}),
    ...(ctx.job.connectionId ? { requester: ctx.job.connectionId } : {}),
    owner: ctx.job.principal,
    ...(ctx.logger ? { logger: ctx.logger } : {}),
  });
}
