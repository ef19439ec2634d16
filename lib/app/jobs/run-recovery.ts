import type { StreamEvent } from '../../core/events.js';
import type { JsonValue, SessionData } from '../../core/session.js';
import { EventBatcher } from '../../transport/batcher.js';
import type { Delivery } from '../../transport/delivery.js';
import type { PipelineMetric } from '../ports/jobs.js';
import { type RunRecord, runNextSeq, terminalEventOf } from '../ports/run-records.js';
import { afterTurn } from './after-turn.js';
import type { JobContext, JobResult, Outcome } from './job-context.js';
import { awaitRunEnd, orphanedBy } from './run-end.js';
import { asJson, type RunLog } from './run-log.js';
import { continuingSeq, storedFirst } from './stored-events.js';

// A job's recovery paths (run-job.ts): a run already ended (its stored terminal event sent
// again), a duplicate resume waiting for the attempt that owns the run, and a turn stored by an
// attempt that died before its end went out (recorded and its run-finished sent now).

/**
 * The run already ended (another channel, an earlier attempt): send its stored terminal event to
 * this job's requester and the session's subscribers, as the same message (seq and content) the
 * run's end sent, so a client that has it drops the copy. Writes nothing.
 */
export async function deliverStored(ctx: JobContext, record: RunRecord): Promise<JobResult> {
  const event = terminalEventOf(record) as StreamEvent | undefined;
  if (event) {
    const seq = record.terminalSeq ?? runNextSeq(record);
    const where = { metrics: ctx.ports.metrics, runId: ctx.job.runId, until: ctx.until };
    await afterTurn(
      'stored-terminal',
      () =>
        deliveryOf(ctx).deliver({
          type: 'events',
          sessionId: record.sessionId,
          runId: record.runId,
          seq,
          events: [event],
        }),
      where,
    );
  }
  ctx.logger?.info('job found its run ended', { runId: ctx.job.runId, status: record.status });
  return { done: true, status: record.status };
}

/**
 * A duplicate resume: the other attempt owns the run's events and record; this one writes
 * nothing. It waits (until its deadline) for the other attempt to end the run, then sends its
 * requester the stored terminal event; past the deadline the job comes back later (its last
 * receive gives up, counted).
 */
export async function refused(
  ctx: JobContext,
  error: Extract<Outcome, { type: 'run-error' }>,
): Promise<JobResult> {
  const { sessionId, runId } = ctx.job;
  count(ctx, 'ResumesRefused', { runId, code: error.code });
  const pausedRuns = ctx.ports.runtime.pausedRuns;
  // No run at all (a guessed or long-gone id): there is no winner to wait for.
  const known = await ctx.ports.runs.get(sessionId, runId);
  if (!known && !(await pausedRuns?.get(sessionId, runId)))
    return { done: true, status: 'refused' };
  const read = () => ctx.ports.runs.get(sessionId, runId);
  const orphaned = orphanedBy(
    async () => (await ctx.ports.runtime.sessions.load(sessionId))?.data,
    async () => (await pausedRuns?.get(sessionId, runId)) !== undefined,
  );
  const record = await awaitRunEnd(read, {
    until: ctx.until,
    pending: async () => (await pausedRuns?.get(sessionId, runId))?.status === 'pending',
    orphaned,
  });
  if (record) return deliverStored(ctx, record);
  // Cleared or a new life meanwhile: no attempt will end it, so coming back cannot help.
  if (ctx.lastAttempt || (await orphaned(await read()).catch(() => false)))
    return { done: true, status: 'refused' };
  return { done: false, reason: 'run-in-progress' };
}

/** The resumed turn's session when it is stored, else undefined. */
export async function resumeStored(ctx: JobContext, log: RunLog): Promise<SessionData | undefined> {
  const session = await ctx.ports.runtime.sessions.load(ctx.job.sessionId).catch(() => undefined);
  const paused = await ctx.ports.runtime.pausedRuns
    ?.get(ctx.job.sessionId, ctx.job.runId)
    .catch(() => undefined);
  // Stored: the session's marker is gone while the run was still paused (claimed or pending), or
  // a resume of it was running (a takeover found it stored and deleted the paused run).
  if (!session) return undefined;
  const marked = session.data.paused?.some((p) => p.runId === ctx.job.runId) ?? false;
  return !marked && (!!paused || log.previous?.status === 'running') ? session.data : undefined;
}

/**
 * The turn is stored but its end was lost (a crash, or a failure right after the save): record
 * it completed, drop the paused run of a resume, and send the run-finished it never sent.
 */
export async function recover(
  ctx: JobContext,
  log: RunLog,
  stored: { text: string; output?: JsonValue },
  open?: EventBatcher,
): Promise<JobResult> {
  const { job } = ctx;
  const { sessionId, runId } = job;
  const where = { metrics: ctx.ports.metrics, runId, until: ctx.until };
  count(ctx, 'TurnsRecovered', { runId, requestId: job.requestId });
  if (job.kind === 'resume') {
    await afterTurn(
      'paused-run-delete',
      async () => ctx.ports.runtime.pausedRuns?.delete(sessionId, runId),
      where,
    );
  }
  const { agent } = log.base;
  const reply = { status: 'completed' as const, runId, sessionId, agent, ...stored };
  const from = open
    ? undefined
    : await continuingSeq(ctx.ports.events, job, log.previous, true, log.firstSeq, log.base);
  const delivery = storedFirst(deliveryOf(ctx), ctx.ports.events, log.base);
  const batcher =
    open ??
    new EventBatcher({
      sessionId,
      runId,
      firstSeq: from?.firstSeq ?? log.firstSeq,
      sink: (message) => delivery.deliver(message),
    });
  await batcher.flush().catch(() => undefined);
  const terminalSeq = batcher.nextSeq;
  await batcher.push({ type: 'run-finished', runId, reply }).catch(() => undefined);
  await closeQuietly(ctx, batcher);
  await log.end('completed', batcher.nextSeq, { reply: asJson(reply), terminalSeq });
  return { done: true, status: 'run-finished' };
}

export async function closeQuietly(ctx: JobContext, batcher: EventBatcher): Promise<void> {
  try {
    await batcher.close();
  } catch (err) {
    count(ctx, 'PostTurnStepFailures', {
      step: 'delivery',
      runId: ctx.job.runId,
      error: String(err),
    });
  }
}

export function deliveryOf(ctx: JobContext): Delivery {
  return ctx.ports.delivery(ctx.job);
}

export function count(ctx: JobContext, name: PipelineMetric, properties: Record<string, unknown>) {
  ctx.ports.metrics.count(name, properties);
}
