import * as z from 'zod';
import { AgentKernelError } from './errors.js';
import { type PausedRun, SafeJsonSchema } from './paused-run.js';
import { SessionIdSchema } from './session.js';

/**
 * Store ports beyond sessions (SessionStore and SessionLock live in session.ts and
 * session-lock.ts, ToolLedger in ledger.ts). lib/stores implements them in memory and in DynamoDB.
 * Times are epoch milliseconds; every store treats an expired record as absent.
 */

// ---------------------------------------------------------------- paused runs

/**
 * How long a resume's claim on a paused run holds by default: 16 minutes, longer than the
 * longest turn on Lambda (15 minutes). It must outlast the longest resume: a claim that lapsed
 * while its holder still runs would let a second resume run the same tool calls again (the
 * session lease serialises turns only while its holder renews it; the claim is what stops a
 * second execution of one paused run).
 */
export const DEFAULT_RESUME_CLAIM_MS = 16 * 60 * 1000;

export interface PausedRunClaimOptions {
  /** How long the claim holds (default `DEFAULT_RESUME_CLAIM_MS`); past it, it may be taken over. */
  claimMs?: number;
}

/** A claim won: the run (status `resuming`) and what gives the claim back. */
export interface PausedRunClaim {
  run: PausedRun;
  /** Names this claim: `release` needs it, so a lapsed holder cannot release a new claim. */
  token: string;
  /** Epoch ms until which the claim holds. */
  claimedUntil: number;
  /** True when the run was `resuming` under a lapsed claim (its holder presumably died). */
  takeover: boolean;
}

export interface PausedRunStore {
  /** Stores a new paused run (status `pending`); an existing record of that run is replaced. */
  put(run: PausedRun): Promise<void>;
  /**
   * The run, status `resuming` while a claim holds; a lapsed claim reads as `pending` (it can be
   * claimed). The claim's token and `claimedUntil` are kept next to the record, never in it.
   */
  get(sessionId: string, runId: string): Promise<PausedRun | undefined>;
  /** Paused runs of a session, oldest first. */
  list(sessionId: string): Promise<PausedRun[]>;
  /**
   * `pending` → `resuming` until `now + claimMs`, atomically: of two concurrent claims exactly
   * one wins, the other gets `RunAlreadyResumed`, as does a claim while another still holds.
   * A `resuming` run whose claim lapsed (a holder that died: no release ran) is taken over. A
   * missing or expired run gives `PausedRunNotFound`.
   */
  claim(sessionId: string, runId: string, options?: PausedRunClaimOptions): Promise<PausedRunClaim>;
  /**
   * `resuming` → `pending` after a failed resume, so it can be tried again; only while `token`
   * is the current claim's (after a takeover the old holder's release does nothing).
   */
  release(sessionId: string, runId: string, token: string): Promise<void>;
  delete(sessionId: string, runId: string): Promise<void>;
}

// ---------------------------------------------------------------- run records

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
  agent: z.string().min(1),
  status: RunStatusSchema,
  /** The reply (completed or paused), as JSON. */
  reply: SafeJsonSchema.optional(),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  /**
   * The first `seq` the run's next events message may use: every lower one may have been sent.
   * A retried or resumed attempt starts here, so no (runId, seq) is ever sent with other content.
   */
  nextSeq: z.number().int().nonnegative().optional(),
  /** The session's turn count when the run's first attempt started (a crashed attempt's retry
   * compares it with the stored session to tell whether the turn was stored). */
  turnsBefore: z.number().int().nonnegative().optional(),
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

// ---------------------------------------------------------------- connections

export const ConnectionSchema = z.strictObject({
  connectionId: z.string().min(1).max(256),
  /** The authenticated principal, when the connection has one. */
  principal: z.string().optional(),
  /** Where to post messages (the API Gateway @connections endpoint). */
  endpoint: z.string().min(1),
  connectedAt: z.number().int(),
});
export type Connection = z.infer<typeof ConnectionSchema>;

export const SubscriptionFormatSchema = z.enum(['native', 'ag-ui']);

export interface Subscription extends Connection {
  sessionId: string;
  format: z.infer<typeof SubscriptionFormatSchema>;
}

export interface ConnectionStore {
  connect(connection: Connection): Promise<void>;
  get(connectionId: string): Promise<(Connection & { sessions: string[] }) | undefined>;
  /** Throws `ConnectionNotFound` when the connection is gone. Subscribing again updates format. */
  subscribe(
    connectionId: string,
    sessionId: string,
    format?: Subscription['format'],
  ): Promise<void>;
  unsubscribe(connectionId: string, sessionId: string): Promise<void>;
  /** Everything fan-out needs to post to each subscriber, without another read. */
  subscribers(sessionId: string): Promise<Subscription[]>;
  /** Removes the connection and all of its subscriptions. */
  disconnect(connectionId: string): Promise<void>;
}

// ---------------------------------------------------------------- idempotency

export interface IdempotencyClaimOptions {
  /** How long the record (and so the stored result) is kept; default the store's TTL. */
  ttlSeconds?: number;
  /** A claim not completed within this time lapses, so a crashed holder does not block. */
  inProgressMs?: number;
  /** Hash of the payload: a key reused with another payload is refused. */
  fingerprint?: string;
}

export type IdempotencyClaim =
  | { outcome: 'claimed'; token: string }
  | { outcome: 'in-progress' }
  | { outcome: 'completed'; result: unknown };

export interface IdempotencyStore {
  claim(key: string, options?: IdempotencyClaimOptions): Promise<IdempotencyClaim>;
  /** Stores the result under a claim; a lapsed claim taken over by another is refused. */
  complete(key: string, token: string, result: unknown): Promise<void>;
  /** Gives the key up after a failure, so a retry may claim it. */
  release(key: string, token: string): Promise<void>;
}

// ---------------------------------------------------------------- errors

/** A stored record (paused run, run record, connection, ...) that fails its schema. */
export class RecordCorrupt extends AgentKernelError {
  readonly kind: string;

  constructor(kind: string, key: string, detail: string) {
    super('record-corrupt', `Stored ${kind} "${key}" is not valid: ${detail}`);
    this.kind = kind;
  }
}

/** A record a caller asked a store to keep that fails its schema (or is too large). */
export class InvalidRecord extends AgentKernelError {
  constructor(kind: string, detail: string) {
    super('invalid-record', `Refusing to store the ${kind}: ${detail}`);
  }
}

export class PausedRunNotFound extends AgentKernelError {
  constructor(sessionId: string, runId: string) {
    super('paused-run-not-found', `No paused run "${runId}" in session "${sessionId}".`);
  }
}

/** A second resume of one paused run: never a second execution. */
export class RunAlreadyResumed extends AgentKernelError {
  constructor(sessionId: string, runId: string) {
    super('run-already-resumed', `Run "${runId}" of session "${sessionId}" is already resuming.`);
  }
}

export class ConnectionNotFound extends AgentKernelError {
  constructor(connectionId: string) {
    super('connection-not-found', `No connection "${connectionId}".`);
  }
}

/** An idempotency key claimed again with a different payload. */
export class IdempotencyKeyReused extends AgentKernelError {
  constructor(key: string) {
    super('idempotency-key-reused', `Idempotency key "${key}" was used with another payload.`);
  }
}

/** The claim token no longer holds the key (it lapsed and someone else took it). */
export class IdempotencyClaimLost extends AgentKernelError {
  constructor(key: string) {
    super('idempotency-claim-lost', `The claim on idempotency key "${key}" was lost.`);
  }
}

/** The session lease could not be taken in time (another turn holds it). */
export class SessionBusy extends AgentKernelError {
  constructor(sessionId: string, waitedMs: number) {
    super('session-busy', `Session "${sessionId}" is busy: waited ${waitedMs} ms for its lease.`);
  }
}
