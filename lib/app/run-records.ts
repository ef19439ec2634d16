import type { PausedRun } from '../core/paused-run.js';
import type { Reply } from '../core/requests.js';
import type { JsonValue, SessionData } from '../core/session.js';
import { storedReply } from './jobs/stored-turn.js';
import {
  type RunRecord,
  type RunRecordStore,
  type RunStatus,
  runNextSeq,
} from './ports/run-records.js';

/**
 * Run records, one shape and one state machine (`RUN_MOVES_INTO`) whatever made the run
 * (WebSocket, HTTP sync or async, SSE, AG-UI, invoke, resume): `queued` → `running` →
 * `completed` / `paused` / `failed` / `timed-out`. Every write here is a conditional
 * transition: a late, duplicate or refused attempt never writes over the record that stands.
 */
export interface RunRef {
  runId: string;
  sessionId: string;
  agent: string;
  /** The session life the run belongs to (lib/core/ownership.ts `bindingOf`). */
  owner?: string;
  incarnation?: string;
  /** The user's input of a run (kept on the record for the session's turns list). */
  input?: JsonValue;
}

/** The longest a turn can run here (a Lambda's limit), and the slack a claim keeps past it. */
export const MAX_TURN_MS = 15 * 60_000;
export const CLAIM_MARGIN_MS = 30_000;
/**
 * A record `running` with no write for this long has no live attempt (no attempt outlives a
 * Lambda's 15 minutes and its claim margin; a worker writes at least at its end): the next read
 * repairs it from the session.
 */
export const RUN_STALE_AFTER_MS = MAX_TURN_MS + CLAIM_MARGIN_MS;

/** A sync attempt: the record it started from, and whether it moved the record to running. */
export interface SyncAttempt {
  readonly ref: RunRef;
  readonly previous: RunRecord | undefined;
  /** This attempt holds the record (it wrote `running`): only then may it record a failure. */
  readonly owned: boolean;
}

/** Codes of a resume refused because another attempt owns the run: they write nothing. */
export const REFUSED_RESUME = new Set(['run-already-resumed', 'paused-run-not-found']);

/** Statuses no other attempt holds: a sync attempt takes the record only from these. */
const FREE: readonly RunStatus[] = ['queued', 'paused', 'failed', 'timed-out'];

export class RunRecords {
  readonly #store: RunRecordStore;
  readonly #now: () => number;

  constructor(store: RunRecordStore, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  get(sessionId: string, runId: string): Promise<RunRecord | undefined> {
    return this.#store.get(sessionId, runId);
  }

  /** A new run waiting on the queue; a record already past queued is kept. */
  async queued(ref: RunRef): Promise<void> {
    const now = this.#now();
    await this.#store.transition({
      ...base(ref),
      status: 'queued',
      createdAt: now,
      updatedAt: now,
    });
  }

  /**
   * A sync attempt starts: `running` unless another attempt holds the run (running) or it ended
   * (completed). Keeps the record's creation time, a paused run's reply and its seq.
   */
  async start(ref: RunRef): Promise<SyncAttempt> {
    const previous = await this.#store.get(ref.sessionId, ref.runId);
    const result = await this.#store.transition(
      {
        ...base(ref, previous),
        status: 'running',
        ...(previous?.reply === undefined ? {} : { reply: previous.reply }),
        ...seqOf(previous),
        ...(previous?.turnsBefore === undefined ? {} : { turnsBefore: previous.turnsBefore }),
        createdAt: previous?.createdAt ?? this.#now(),
        updatedAt: this.#now(),
      },
      { from: FREE },
    );
    return { ref, previous, owned: result.applied };
  }

  /**
   * The reply of a sync run or resume. Its terminal event went out at `sentSeq` when the turn
   * streamed (SSE); else (nothing sent) it takes the run's next seq.
   */
  async finished(attempt: SyncAttempt, reply: Reply, sentSeq?: number): Promise<void> {
    const { ref, previous } = attempt;
    const terminalSeq = sentSeq ?? runNextSeq(previous);
    const seqs = { terminalSeq, nextSeq: terminalSeq + 1 };
    const times = { createdAt: previous?.createdAt ?? this.#now(), updatedAt: this.#now() };
    if (reply.status === 'completed') {
      await this.#store.transition({
        ...base(ref, previous),
        status: 'completed',
        reply: json(reply),
        ...seqs,
        ...times,
      });
      return;
    }
    // A paused reply carries the seq the run continues at, as the worker writes it too.
    await this.#store.transition({
      ...base(ref, previous),
      status: 'paused',
      reply: json({ ...reply, nextSeq: seqs.nextSeq }),
      ...seqs,
      ...times,
    });
  }

  /**
   * A failed sync attempt, recorded only by the attempt that holds the record (a refused resume
   * and a loser write nothing). A resume whose paused run still waits stays `paused`.
   */
  async failed(
    attempt: SyncAttempt,
    error: { code: string; message: string },
    options: { stillPaused?: boolean; terminalSeq?: number | undefined } = {},
  ): Promise<void> {
    const { ref, previous } = attempt;
    if (!attempt.owned || REFUSED_RESUME.has(error.code)) return;
    const status: RunStatus = options.stillPaused
      ? 'paused'
      : error.code === 'run-timeout'
        ? 'timed-out'
        : 'failed';
    const terminalSeq = options.terminalSeq ?? runNextSeq(previous);
    await this.#store.transition(
      {
        ...base(ref, previous),
        status,
        error,
        ...(previous?.reply === undefined ? {} : { reply: previous.reply }),
        terminalSeq,
        nextSeq: terminalSeq + 1,
        createdAt: previous?.createdAt ?? this.#now(),
        updatedAt: this.#now(),
      },
      { from: ['running'] },
    );
  }

  /**
   * The record, repaired when it was left `running` past `RUN_STALE_AFTER_MS` (its attempt died
   * or every write of its end failed): the session says what was stored — its `lastReply`, its
   * paused markers, its turn count — and the record moves there, conditionally (a live writer
   * that got there first wins).
   */
  async read(
    sessionId: string,
    runId: string,
    truth: {
      session: () => Promise<SessionData | undefined>;
      pausedRun: () => Promise<Pick<PausedRun, 'interruptions' | 'status'> | undefined>;
    },
  ): Promise<RunRecord | undefined> {
    const record = await this.#store.get(sessionId, runId);
    if (record?.status !== 'running') return record;
    if (this.#now() - record.updatedAt <= RUN_STALE_AFTER_MS) return record;
    const repaired = repairOf(record, await truth.session(), await truth.pausedRun(), this.#now());
    const result = await this.#store.transition(repaired, { from: ['running'] });
    return result.applied ? repaired : result.current;
  }
}

/**
 * What a stale `running` record really is. A run's turn stored shows as the session's
 * `lastReply` (or a pause marker, or more turns than when it started); a resume (its record
 * kept the paused reply) stored its turn when the session no longer marks it paused.
 */
export function repairOf(
  record: RunRecord,
  session: SessionData | undefined,
  pausedRun: Pick<PausedRun, 'interruptions' | 'status'> | undefined,
  now: number,
): RunRecord {
  const { runId, sessionId, agent } = record;
  const terminalSeq = runNextSeq(record);
  const common = { ...record, terminalSeq, nextSeq: terminalSeq + 1, updatedAt: now };
  const wasPaused = record.reply !== undefined;
  const marked = session?.paused?.some((p) => p.runId === runId) ?? false;
  const turnsGrew =
    session !== undefined && record.turnsBefore !== undefined && session.turns > record.turnsBefore;
  const stored =
    session !== undefined &&
    (session.lastReply?.runId === runId || (wasPaused ? !marked : !marked && turnsGrew));
  if (stored) {
    const reply = {
      status: 'completed',
      runId,
      sessionId,
      agent,
      ...storedReply(session, runId, ''),
    };
    const { error: _e, ...rest } = common;
    return { ...rest, status: 'completed', reply: json(reply) };
  }
  if (marked && pausedRun) {
    const { nextSeq } = common;
    const reply = {
      status: 'paused',
      runId,
      sessionId,
      agent,
      interruptions: pausedRun.interruptions,
      nextSeq,
    };
    const { error: _e, ...rest } = common;
    return { ...rest, status: 'paused', reply: json(reply) };
  }
  const minutes = Math.round(RUN_STALE_AFTER_MS / 60_000);
  return {
    ...common,
    status: 'timed-out',
    error: {
      code: 'run-timeout',
      message: `No attempt of the run ended within ${minutes} minutes and its turn was not stored; send the request again (tool results it recorded are kept and not run twice).`,
    },
  };
}

/** A run record as clients read it: one shape whatever path made it. */
export type PublicRunRecord = Omit<
  RunRecord,
  'nextSeq' | 'turnsBefore' | 'terminalSeq' | 'owner' | 'incarnation'
>;

/**
 * Without the bookkeeping (`nextSeq`, `turnsBefore`, `terminalSeq`) and the binding (`owner`,
 * `incarnation`): a paused reply carries its seq for the client, so the answer has the same keys
 * on every path.
 */
export function publicRun(record: RunRecord): PublicRunRecord {
  const {
    nextSeq: _seq,
    turnsBefore: _turns,
    terminalSeq: _terminal,
    owner: _o,
    incarnation: _i,
    ...shown
  } = record;
  return shown;
}

function base(ref: RunRef, previous?: RunRecord) {
  // A resume names no input: the run keeps the one it started with.
  const input = ref.input ?? previous?.input;
  return {
    schemaVersion: 1 as const,
    runId: ref.runId,
    sessionId: ref.sessionId,
    ...(ref.owner === undefined ? {} : { owner: ref.owner }),
    ...(ref.incarnation === undefined ? {} : { incarnation: ref.incarnation }),
    agent: ref.agent,
    ...(input === undefined ? {} : { input }),
  };
}

/** A run that already sent events keeps its next seq through a sync part. */
function seqOf(previous: RunRecord | undefined): { nextSeq?: number } {
  const nextSeq = runNextSeq(previous);
  return nextSeq === 0 ? {} : { nextSeq };
}

/** Replies are JSON by construction (the runtime validated them); the store checks again. */
function json(value: unknown): JsonValue {
  return value as JsonValue;
}
