import * as z from 'zod/mini';
import { lazySchema } from '../../core/lazy-schema.js';
import { SafeJsonSchema } from '../../core/paused-run.js';
import { SessionIdSchema } from '../../core/session.js';

/**
 * The run record port: one record per run, whatever the path (WS, HTTP sync/async, invoke,
 * resume), that clients poll and the worker moves. Only the distribution keeps them, so the port
 * is lib/app's, not lib/core's. lib/stores implements it in memory and in DynamoDB.
 */

export const RUN_RECORD_SCHEMA_VERSION = 1;

export const RunStatusSchema = /* @__PURE__ */ lazySchema(() =>
  z.enum(['queued', 'running', 'paused', 'completed', 'failed', 'timed-out']),
);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/**
 * From which statuses a run may move into each status (a missing record may move anywhere).
 * `completed` is final and nothing moves back to `queued`: a late or losing writer (a duplicate
 * resume, a redelivered job) never overwrites the winner's outcome.
 */
export const RUN_MOVES_INTO: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  queued: ['queued'],
  // A resume leaves paused; a retry continues a failed or timed-out attempt.
  running: ['queued', 'running', 'paused', 'failed', 'timed-out'],
  // paused → paused: a refused resume moves the run's next seq on.
  paused: ['queued', 'running', 'paused'],
  completed: ['queued', 'running'],
  failed: ['queued', 'running', 'timed-out'],
  'timed-out': ['queued', 'running'],
};

/** Whether a run stored as `from` (undefined: no record) may be written as `to`. */
export function canMoveRun(
  from: RunStatus | undefined,
  to: RunStatus,
  options: TransitionOptions = {},
): boolean {
  return from === undefined || movesInto(to, options).includes(from);
}

/** The statuses a record may be stored with for a write of `to` (see `canMoveRun`). */
export function movesInto(to: RunStatus, options: TransitionOptions = {}): readonly RunStatus[] {
  const allowed = RUN_MOVES_INTO[to];
  const { from } = options;
  return from === undefined ? allowed : allowed.filter((status) => from.includes(status));
}

/** Status of an asynchronous run (queued on SQS, polled over HTTP). */
export const RunRecordSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    schemaVersion: z.literal(RUN_RECORD_SCHEMA_VERSION),
    runId: z.string().check(z.minLength(1), z.maxLength(256)),
    sessionId: SessionIdSchema,
    /**
     * The session's owner and incarnation the run ran in (lib/core/ownership.ts): the record is
     * read only while the session is still that life of it (not after a clear, expiry, reclaim).
     */
    owner: z.optional(z.string()),
    incarnation: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    agent: z.string().check(z.minLength(1)),
    /** What the user sent to start the run (a run's input; a resume has none): the turns list. */
    input: z.optional(SafeJsonSchema),
    status: RunStatusSchema,
    /** The reply (completed or paused), as JSON. */
    reply: z.optional(SafeJsonSchema),
    error: z.optional(z.strictObject({ code: z.string(), message: z.string() })),
    /**
     * The first `seq` the run's next events message may use: every lower one may have been sent.
     * A retried or resumed attempt starts here, so no (runId, seq) is ever sent with other content.
     */
    nextSeq: z.optional(z.number().check(z.int(), z.nonnegative(), z.lte(Number.MAX_SAFE_INTEGER))),
    /** The session's turn count when the run's first attempt started (a crashed attempt's retry
     * compares it with the stored session to tell whether the turn was stored). */
    turnsBefore: z.optional(
      z.number().check(z.int(), z.nonnegative(), z.lte(Number.MAX_SAFE_INTEGER)),
    ),
    /**
     * The seq of the events message that carries the run's terminal event alone (`terminalEventOf`):
     * a job that finds the run already ended sends that same message again, so a client that has it
     * drops the copy and one that missed it gets its one terminal event.
     */
    terminalSeq: z.optional(
      z.number().check(z.int(), z.nonnegative(), z.lte(Number.MAX_SAFE_INTEGER)),
    ),
    createdAt: z.number().check(z.int()),
    updatedAt: z.number().check(z.int()),
  }),
);
export type RunRecord = z.infer<typeof RunRecordSchema>;

/** A transition's answer: written, or refused with the record that stands (undefined: none). */
export type RunTransition =
  | { readonly applied: true }
  | { readonly applied: false; readonly current: RunRecord | undefined };

export interface TransitionOptions {
  /**
   * Narrows the statuses the stored record may have (a missing record always may): a sync
   * attempt moves a run to `running` only from a status no other attempt holds.
   */
  from?: readonly RunStatus[];
}

export interface RunRecordStore {
  /**
   * Creates or replaces the record of a run, unconditionally: for seeding and migrations only.
   * lib/app and lib/aws write records through `transition` alone (test/unit/app checks it).
   */
  put(record: RunRecord): Promise<void>;
  /**
   * Writes `record` only if the stored record's status may move into `record.status`
   * (`canMoveRun`, narrowed by `options.from`), atomically; otherwise answers the record that
   * stands and changes nothing.
   */
  transition(record: RunRecord, options?: TransitionOptions): Promise<RunTransition>;
  get(sessionId: string, runId: string): Promise<RunRecord | undefined>;
}

/**
 * The first seq a run's next events message may use: the record's `nextSeq`, or (a paused run
 * recorded before `nextSeq` was a field of the record) the one its paused reply kept.
 */
export function runNextSeq(record: RunRecord | undefined): number {
  const kept = (record?.reply as { nextSeq?: unknown } | undefined)?.nextSeq;
  const fromReply = typeof kept === 'number' && Number.isSafeInteger(kept) && kept >= 0 ? kept : 0;
  return Math.max(record?.nextSeq ?? 0, fromReply);
}

/**
 * The run's terminal event as its record keeps it (undefined while the run has none): what every
 * path sends as the last events message of a run, alone at `terminalSeq`, so the copy a late job
 * sends is the same message a client may already have.
 */
export function terminalEventOf(record: RunRecord): TerminalEvent | undefined {
  const { runId, sessionId } = record;
  if (record.status === 'completed' && record.reply !== undefined) {
    return { type: 'run-finished', runId, reply: record.reply };
  }
  if (record.status === 'paused') {
    const interruptions = (record.reply as { interruptions?: unknown } | undefined)?.interruptions;
    if (!Array.isArray(interruptions) || interruptions.length === 0) return undefined;
    return { type: 'run-paused', runId, sessionId, interruptions };
  }
  if ((record.status === 'failed' || record.status === 'timed-out') && record.error) {
    return { type: 'run-error', runId, code: record.error.code, message: record.error.message };
  }
  return undefined;
}

/** A terminal event as the record rebuilds it (the reply and interruptions are stored JSON). */
export type TerminalEvent =
  | { type: 'run-finished'; runId: string; reply: unknown }
  | { type: 'run-paused'; runId: string; sessionId: string; interruptions: unknown[] }
  | { type: 'run-error'; runId: string; code: string; message: string };
