import { AgentKernelError, RunAborted, SessionForbidden, toErrorInfo } from '../../core/errors.js';
import type { Reply } from '../../core/requests.js';
import type { SessionData } from '../../core/session.js';
import { NotFound } from '../errors.js';
import type { SentSeqs } from '../ports.js';
import { MAX_TURN_MS, REFUSED_RESUME, type RunRecords, type RunRef } from '../run-records.js';
import { retrying } from './retry.js';
import { awaitRunEnd, orphanedBy, replyOf } from './run-end.js';
import { storedReply } from './stored-turn.js';

export interface SyncRunDeps {
  records: RunRecords;
  /** The session as stored now: what a timed-out turn left behind. */
  session: (sessionId: string) => Promise<SessionData | undefined>;
  /** Whether a resumed run's paused run still waits (a failed resume stays paused). */
  stillPaused: (sessionId: string, runId: string) => Promise<boolean>;
  redact?: ((text: string) => string) | undefined;
}

/**
 * A turn run here (sync HTTP, SSE, AG-UI, invoke) between its run records, through the same
 * state machine as the worker's jobs: running (unless another attempt holds the run), then
 * completed / paused, or — recorded only by the attempt that held the record — failed. A
 * refused resume (`run-already-resumed`, `paused-run-not-found`) writes nothing.
 */
export async function runRecorded(
  deps: SyncRunDeps,
  ref: RunRef,
  options: {
    timeoutMs?: number | undefined;
    resume?: boolean;
    /** A refused resume: the winner's outcome (a retry of the owner's), or the refusal itself. */
    refused?: 'winner' | 'conflict';
  },
  turn: (signal: AbortSignal | undefined, sent: SentSeqs) => Promise<Reply>,
): Promise<Reply> {
  const attempt = await deps.records.start(ref);
  // A streaming turn fills in the seq its terminal event went out at: the record's terminalSeq.
  const sent: SentSeqs = {};
  let reply: Reply;
  try {
    reply = await withTimeout(options.timeoutMs, (signal) => turn(signal, sent));
  } catch (thrown) {
    let err = thrown;
    if (isTimeout(err)) {
      // The abort may have landed after the save: then the stored turn is the answer.
      const known = await whatIsStored(deps, ref).catch(() => undefined);
      if (known?.reply) {
        reply = known.reply;
        await finish(deps, attempt, reply, sent);
        return reply;
      }
      err = timeoutError(options.timeoutMs ?? 0, ref);
    }
    const refused = err instanceof AgentKernelError && REFUSED_RESUME.has(err.code);
    if (options.resume && refused && options.refused !== 'conflict') {
      // Another attempt holds the run: its requester gets that attempt's outcome (terminal rule).
      const ended = await awaitRunEnd(() => deps.records.get(ref.sessionId, ref.runId), {
        until: Date.now() + (options.timeoutMs ?? MAX_TURN_MS),
        pending: () => deps.stillPaused(ref.sessionId, ref.runId),
        orphaned: orphanedBy(
          () => deps.session(ref.sessionId),
          () => deps.stillPaused(ref.sessionId, ref.runId),
        ),
      });
      if (ended) return replyOf(ended);
    }
    const error =
      err instanceof SessionForbidden ? new NotFound(`Session "${ref.sessionId}"`) : err;
    const info = toErrorInfo(error);
    const redact = deps.redact ?? ((text: string) => text);
    const stillPaused = options.resume
      ? await deps.stillPaused(ref.sessionId, ref.runId).catch(() => false)
      : false;
    const failure = { ...info, message: redact(info.message) };
    await deps.records.failed(attempt, failure, { stillPaused, terminalSeq: sent.terminal });
    throw error;
  }
  await finish(deps, attempt, reply, sent);
  return reply;
}

/** The turn is stored: its record is retried in place, never a 500 that invites a re-run. */
async function finish(
  deps: SyncRunDeps,
  attempt: Awaited<ReturnType<RunRecords['start']>>,
  reply: Reply,
  sent: SentSeqs,
) {
  const record = () => deps.records.finished(attempt, reply, sent.terminal);
  await retrying(record, { attempts: 4, baseMs: 200 }).catch(() => undefined);
}

const TIMED_OUT = Symbol('timed-out');

/** A sync turn that outlives `ms` is aborted. */
async function withTimeout<T>(
  ms: number | undefined,
  fn: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (ms === undefined) return fn(undefined);
  const signal = AbortSignal.timeout(ms);
  try {
    return await fn(signal);
  } catch (err) {
    const aborted =
      err instanceof RunAborted ||
      (err as Error)?.name === 'AbortError' ||
      (err instanceof AgentKernelError && err.code === 'run-aborted');
    if (signal.aborted && aborted)
      throw Object.assign(new Error('timed out'), { [TIMED_OUT]: true });
    throw err;
  }
}

function isTimeout(err: unknown): boolean {
  return typeof err === 'object' && err !== null && TIMED_OUT in err;
}

/** The run's turn as the session stored it, if it did. */
async function whatIsStored(deps: SyncRunDeps, ref: RunRef): Promise<{ reply?: Reply }> {
  const session = await deps.session(ref.sessionId);
  if (session?.lastReply?.runId !== ref.runId) return {};
  const { runId, sessionId, agent } = ref;
  return {
    reply: {
      status: 'completed',
      runId,
      sessionId,
      agent,
      ...storedReply(session, runId, ''),
    } as Reply,
  };
}

/**
 * What is known when the time ran out before the turn was stored: the attempt was stopped, a tool
 * call it made may have run (its recorded result is kept, so the same request sent again does
 * not run it twice), and the run's record says where it stands.
 */
function timeoutError(ms: number, ref: RunRef): AgentKernelError {
  const path = `/sessions/${encodeURIComponent(ref.sessionId)}/runs/${encodeURIComponent(ref.runId)}`;
  return new AgentKernelError(
    'run-timeout',
    `The run did not finish within ${ms} ms and was stopped before its turn was stored. Tool calls it made may have run: their results are kept, so sending the same request again completes the run without running them twice. Read GET ${path} for the run's state.`,
  );
}
