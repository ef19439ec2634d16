import { AgentKernelError } from './errors.js';
import type { PausedRun } from './paused-run.js';

/**
 * Store ports of the runtime beyond sessions (SessionStore and SessionLock live in session.ts and
 * session-lock.ts, ToolLedger in ledger.ts): paused runs and the errors every store shares. The
 * distribution's own ports (run records, idempotency, ...) are lib/app's. lib/stores implements
 * them in memory and in DynamoDB. Times are epoch milliseconds; every store treats an expired
 * record as absent.
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

// ---------------------------------------------------------------- errors

/** A stored record (a paused run, or any other store's) that fails its schema. */
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

/** The session lease could not be taken in time (another turn holds it). */
export class SessionBusy extends AgentKernelError {
  constructor(sessionId: string, waitedMs: number) {
    super('session-busy', `Session "${sessionId}" is busy: waited ${waitedMs} ms for its lease.`);
  }
}
