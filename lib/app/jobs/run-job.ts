import { randomUUID } from 'node:crypto';
import type { StreamEvent } from '../../core/events.js';
import { bindingOf, isOwner } from '../../core/ownership.js';
import type { JsonValue, SessionData } from '../../core/session.js';
import { EventBatcher } from '../../transport/batcher.js';
import { emitBatches } from '../../transport/delivery.js';
import type { EventsMessage, TurnJob } from '../../transport/protocol.js';
import type { RunRecord } from '../ports/run-records.js';
import { REFUSED_RESUME } from '../run-records.js';
import { afterTurn } from './after-turn.js';
import type { JobContext, JobResult, Outcome } from './job-context.js';
import { asJson, RunLog } from './run-log.js';
import {
  closeQuietly,
  count,
  deliverStored,
  deliveryOf,
  recover,
  refused,
  resumeStored,
} from './run-recovery.js';
import { continuingSeq, storedFirst } from './stored-events.js';
import { finished, storedEarlier, storedReply } from './stored-turn.js';

export type { JobContext, JobResult, Outcome };

/** Failures a later attempt may not meet; retried while receives remain, before any terminal event. */
const RETRYABLE = new Set([
  'store-throttled',
  'session-busy',
  'session-conflict',
  'model-error',
  'model-rate-limited',
]);
/** A second resume of a run: the first (or an earlier attempt of this job) owns its outcome. */
const REFUSED = REFUSED_RESUME;

/**
 * One attempt of a run or resume job. Never throws once the turn's outcome is known (the turn
 * was stored, or its run-error sent): what follows is retried in place (`afterTurn`).
 */
export async function runJob(ctx: JobContext): Promise<JobResult> {
  const { ports, job } = ctx;
  const { runtime, runs } = ports;
  const { sessionId, runId } = job;
  const previous = await runs.get(sessionId, runId);
  // Ended by another channel or an earlier attempt: its requester still gets the terminal event.
  if (previous && finished(previous, job)) return deliverStored(ctx, previous);
  const paused =
    job.kind === 'resume' ? await runtime.pausedRuns?.get(sessionId, runId) : undefined;
  const agent =
    job.kind === 'run' ? job.agent : (paused?.agent ?? job.agent ?? previous?.agent ?? 'unknown');
  // The turn loads the session once, under its lease (`onSession`); only a redelivery reads it
  // first, to tell what a crashed attempt stored.
  const session = ctx.redelivered ? await runtime.sessions.load(sessionId) : undefined;
  const seen: { turnsBefore?: number } = session ? { turnsBefore: session.data.turns } : {};
  const base = {
    schemaVersion: 1 as const,
    runId,
    sessionId,
    ...jobBinding(session?.data, ctx.redelivered, previous, job.principal),
    agent,
    ...inputOf(job, previous),
    createdAt: previous?.createdAt ?? Date.now(),
  };
  const log = new RunLog(runs, base, previous, seen, {
    logger: ctx.logger,
    metrics: ctx.ports.metrics,
    until: ctx.until,
  });
  if (ctx.redelivered) {
    const earlier = storedEarlier(job, previous, session?.data);
    if (earlier === 'completed') return recover(ctx, log, storedReply(session?.data, runId, ''));
    if (earlier === 'paused') {
      const run = await runtime.pausedRuns?.get(sessionId, runId);
      if (run) return recoverPause(ctx, log, run.interruptions);
    }
  }
  return stream(ctx, log, seen);
}

/**
 * The session life a job's run record belongs to: the session's, when the job's principal owns it;
 * unread (a first delivery: the turn reads it under its lease), the life the front door stamped on
 * the queued record; otherwise (gone since the job was queued, or another's now) a new one of the
 * principal's, which the turn gives the session if it creates it. Never the life of another's.
 */
function jobBinding(
  session: SessionData | undefined,
  read: boolean,
  previous: RunRecord | undefined,
  principal: string,
) {
  if (session && isOwner(session.owner, principal)) return bindingOf(session);
  if (!read && previous?.owner === principal && previous.incarnation) {
    return { owner: principal, incarnation: previous.incarnation };
  }
  return { owner: principal, incarnation: randomUUID() };
}

/** The user's input the record keeps: the run job's, or (a resume) the one the run started with. */
function inputOf(job: TurnJob, previous: RunRecord | undefined): { input?: JsonValue } {
  const input = job.kind === 'run' ? asJson(job.input) : previous?.input;
  return input === undefined ? {} : { input };
}

/** The life of a session as the turn loaded it: the principal's own, else the one it creates. */
function lifeOf(data: SessionData | undefined, principal: string, fresh: string) {
  if (data && isOwner(data.owner, principal)) return bindingOf(data);
  return { owner: principal, incarnation: fresh };
}

async function stream(
  ctx: JobContext,
  log: RunLog,
  seen: { turnsBefore?: number },
): Promise<JobResult> {
  const { ports, job } = ctx;
  const { runtime } = ports;
  const { sessionId, runId, principal } = job;
  const state: StreamState = { stored: false, terminalSent: false };
  const start = await continuingSeq(ports.events, job, log.previous, ctx.redelivered, log.firstSeq);
  if (start.resend) await emitBatches(deliveryOf(ctx), start.resend);
  const batcher = newBatcher(ctx, log, state, start.firstSeq);
  // Unread before the turn (a first delivery), the session's life is learnt as the turn loads it,
  // before any record write: its own, or the fresh one the turn creates it in (after a clear).
  const fresh = ctx.redelivered ? undefined : randomUUID();
  const onSession = (data: SessionData | undefined) => {
    seen.turnsBefore ??= data?.turns ?? 0;
    if (fresh) Object.assign(log.base, lifeOf(data, principal, fresh));
    // The record's binding is known now: its first seq block is written while the model thinks
    // (a resume may still be refused, which must write nothing: it reserves at its first send).
    if (job.kind === 'run') log.reserveAhead();
  };
  const options = { principal, signal: ctx.signal, onSession };
  const events =
    job.kind === 'run'
      ? runtime.stream(job.agent, sessionId, job.input, {
          ...options,
          // A session gone since the job was queued is created again in the record's life.
          ...((fresh ?? log.base.incarnation)
            ? { incarnation: fresh ?? log.base.incarnation }
            : {}),
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
        outcome = alone(event);
      }
      if (held) await batcher.push(held);
      held = undefined;
      // The batcher seals the terminal event alone at its own seq (the message a late job sends
      // again), in the same send as the batch before it.
      await batcher.push(outcome ?? event);
    }
  } catch (err) {
    // Past the save (the runtime's lease release, an earlier batch's failure): the turn stands.
    if (!state.stored) throw err;
    count(ctx, 'PostTurnStepFailures', {
      step: 'after-save',
      runId,
      error: String(err),
    });
  }
  outcome ??= { type: 'run-error', runId, code: 'internal-error', message: 'The run ended early.' };
  if (outcome.type === 'run-error') return ended(ctx, log, batcher, outcome, held, text);
  const nextSeq = await deliverOutcome(ctx, log, batcher, outcome, state);
  await recordOutcome(ctx, log, outcome, nextSeq, state.terminalSeq);
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
  /** The seq of the message carrying the terminal event (recorded as `terminalSeq`). */
  terminalSeq?: number;
}

/** The attempt's batcher: reserves seqs before each send; past the save it never fails. */
function newBatcher(
  ctx: JobContext,
  log: RunLog,
  state: StreamState,
  firstSeq: number,
): EventBatcher {
  return new EventBatcher({
    sessionId: ctx.job.sessionId,
    runId: ctx.job.runId,
    firstSeq,
    sinkMany: (messages) => emitBatch(ctx, log, state, messages),
    // The ceiling of the adaptive window (docs/benchmarks.md#delivery).
    ...(ctx.ports.batchMaxDelayMs === undefined ? {} : { maxDelayMs: ctx.ports.batchMaxDelayMs }),
    ...(ctx.ports.batchMinDelayMs === undefined ? {} : { minDelayMs: ctx.ports.batchMinDelayMs }),
  });
}

/**
 * Where the attempt's sealed batches leave the worker (every message ready at once, in seq
 * order): their seqs reserved, then handed to the delivery in one go (SendMessageBatch).
 */
async function emitBatch(
  ctx: JobContext,
  log: RunLog,
  state: StreamState,
  messages: EventsMessage[],
): Promise<void> {
  const last = messages.at(-1);
  if (last === undefined) return;
  try {
    await log.reserve(last.seq);
  } catch (err) {
    // Past the save the messages go out anyway: no later attempt reuses these seqs.
    if (!state.stored) throw err;
  }
  const delivery = storedFirst(deliveryOf(ctx), ctx.ports.events, log.base);
  const where = { metrics: ctx.ports.metrics, runId: ctx.job.runId, until: ctx.until };
  const send = () => emitBatches(delivery, messages);
  const sent = state.stored
    ? await afterTurn('delivery', send, where)
    : await send().then(() => true);
  const terminal = messages.find((m) => m.events.some((e) => TERMINAL.has(e.type)));
  if (terminal) {
    state.terminalSeq = terminal.seq;
    if (sent) state.terminalSent = true;
  }
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
  terminalSeq: number | undefined,
): Promise<void> {
  const { job } = ctx;
  const { sessionId, runId } = job;
  const seq = terminalSeq === undefined ? {} : { terminalSeq };
  if (outcome.type === 'run-finished') {
    await log.end('completed', nextSeq, { reply: asJson(outcome.reply), ...seq });
    return;
  }
  const { agent } = log.base;
  const { interruptions } = outcome;
  const reply = { status: 'paused', runId, sessionId, agent, interruptions, nextSeq };
  await log.end('paused', nextSeq, { reply: asJson(reply), ...seq });
  await afterTurn('pause-announcement', () => ctx.ports.announcePause(job, agent, outcome), {
    metrics: ctx.ports.metrics,
    runId,
    until: ctx.until,
  });
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
  if (error.code === 'run-timeout') count(ctx, 'RunTimeouts', { runId });
  const timeout = error.code === 'run-timeout';
  if ((RETRYABLE.has(error.code) || timeout) && !ctx.lastAttempt) {
    // Not terminal: `run-retrying`; the retry continues the run's seq and ends it with the run's
    // one terminal event.
    if (held) await batcher.push(held).catch(() => undefined);
    await batcher.push(retryingOf(ctx, error)).catch(() => undefined);
    await batcher.flush().catch(() => undefined);
    const patch = { error: { code: error.code, message: error.message } };
    if (timeout) await log.end('timed-out', batcher.nextSeq, patch);
    else if (log.running) await log.end('running', batcher.nextSeq);
    return { done: false, reason: error.code };
  }
  if (held) await batcher.push(held).catch(() => undefined);
  await batcher.flush().catch(() => undefined);
  const terminalSeq = batcher.nextSeq;
  const { code, message } = error;
  await batcher.push({ type: 'run-error', runId, code, message }).catch(() => undefined);
  await closeQuietly(ctx, batcher);
  const status = timeout ? 'timed-out' : await failedStatus(ctx);
  const kept = log.previous?.reply === undefined ? {} : { reply: log.previous.reply };
  const patch = { error: { code: error.code, message: error.message }, ...kept, terminalSeq };
  await log.end(status, batcher.nextSeq, patch);
  ctx.logger?.info('job done', { requestId: job.requestId, runId, outcome: error.code });
  return { done: true, status: 'run-error' };
}

/** The non-terminal notice of an attempt that stopped and will be retried. */
function retryingOf(ctx: JobContext, error: Extract<Outcome, { type: 'run-error' }>): StreamEvent {
  const { runId } = ctx.job;
  const when = ctx.retryInSeconds === undefined ? {} : { retryInSeconds: ctx.retryInSeconds };
  return { type: 'run-retrying', runId, code: error.code, message: error.message, ...when };
}

/** A terminal event with exactly the fields its record rebuilds (`terminalEventOf`). */
function alone<E extends Extract<Outcome, { type: 'run-finished' | 'run-paused' }>>(event: E): E {
  if (event.type === 'run-finished') {
    return { type: 'run-finished', runId: event.runId, reply: event.reply } as E;
  }
  const { runId, sessionId, interruptions } = event;
  return { type: 'run-paused', runId, sessionId, interruptions } as E;
}

/** A resume that failed with its paused run still waiting stays paused (it can be resumed). */
async function failedStatus(ctx: JobContext): Promise<'failed' | 'paused'> {
  if (ctx.job.kind !== 'resume') return 'failed';
  const run = await ctx.ports.runtime.pausedRuns
    ?.get(ctx.job.sessionId, ctx.job.runId)
    .catch(() => undefined);
  return run?.status === 'pending' ? 'paused' : 'failed';
}

/** The turn paused and was stored, but its run-paused was lost: send it, record and announce. */
async function recoverPause(
  ctx: JobContext,
  log: RunLog,
  interruptions: Extract<Outcome, { type: 'run-paused' }>['interruptions'],
): Promise<JobResult> {
  const { sessionId, runId } = ctx.job;
  count(ctx, 'TurnsRecovered', { runId, requestId: ctx.job.requestId });
  const outcome: Outcome = { type: 'run-paused', runId, sessionId, interruptions };
  const state: StreamState = { stored: true, terminalSent: false };
  const batcher = newBatcher(ctx, log, state, log.firstSeq);
  const nextSeq = await deliverOutcome(ctx, log, batcher, outcome, state);
  await recordOutcome(ctx, log, outcome, nextSeq, state.terminalSeq);
  return { done: true, status: 'run-paused' };
}
