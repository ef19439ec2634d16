import * as z from 'zod';
import { SafeJsonSchema } from '../../core/paused-run.js';
import { SessionIdSchema } from '../../core/session.js';

/**
 * The run record port: one record per run, whatever the path (WS, HTTP sync/async, invoke,
 * resume), that clients poll and the worker moves. Only the distribution keeps them, so the port
 * is lib/app's, not lib/core's. lib/stores implements it in memory and in DynamoDB.
 */

export const RUN_RECORD_SCHEMA_VERSION = 1;

export const RunStatusSchema = z.enum([
  'queued',
  'running',
  'paused',
  'completed',
  'failed',
  'timed-out',
]);
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
export function canMoveRun(from: RunStatus | undefined, to: RunStatus): boolean {
  return from === undefined || RUN_MOVES_INTO[to].includes(from);
}

/** Status of an asynchronous run (queued on SQS, polled over HTTP). */
export const RunRecordSchema = z.strictObject({
  schemaVersion: z.literal(RUN_RECORD_SCHEMA_VERSION),
  runId: z.string().min(1).max(256),
  sessionId: SessionIdSchema,
  /**
   * The session's owner and incarnation the run ran in (lib/core/ownership.ts): the record is
   * read only while the session is still that life of it (not after a clear, expiry, reclaim).
   */
  owner: z.string().optional(),
  incarnation: z.string().min(1).max(64).optional(),
  agent: z.string().min(1),
  status: RunStatusSchema,
  /** The reply (completed or paused), as JSON. */
  reply: SafeJsonSchema.optional(),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  /**
   * The first `seq` the run's next events message may use: every lower one may have been sent.
   * A retried or resumed attempt starts here, so no (runId, seq) is ever sent with other content.
   */
  nextSeq: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  /** The session's turn count when the run's first attempt started (a crashed attempt's retry
   * compares it with the stored session to tell whether the turn was stored). */
  turnsBefore: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

/** A transition's answer: written, or refused with the record that stands (undefined: none). */
export type RunTransition =
  | { readonly applied: true }
  | { readonly applied: false; readonly current: RunRecord | undefined };

export interface RunRecordStore {
  /** Creates or replaces the record of a run. */
  put(record: RunRecord): Promise<void>;
  /**
   * Writes `record` only if the stored record's status may move into `record.status`
   * (`canMoveRun`), atomically; otherwise answers the record that stands and changes nothing.
   */
  transition(record: RunRecord): Promise<RunTransition>;
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
