import type { Reply } from '../core/requests.js';
import type { JsonValue } from '../core/session.js';
import { type RunRecord, type RunRecordStore, runNextSeq } from './ports/run-records.js';

/**
 * Run records, one shape whatever made the run (WebSocket, HTTP sync or async, invoke, resume):
 * `queued` → `running` → `completed` (reply) / `paused` (reply: the paused reply with
 * `nextSeq`, as the worker writes it) / `failed` (error). The worker writes the same shape.
 */
export interface RunRef {
  runId: string;
  sessionId: string;
  agent: string;
  /** The session life the run belongs to (lib/core/ownership.ts `bindingOf`). */
  owner?: string;
  incarnation?: string;
}

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

  /** A new run waiting on the queue. */
  async queued(ref: RunRef): Promise<void> {
    const now = this.#now();
    await this.#store.put({ ...base(ref), status: 'queued', createdAt: now, updatedAt: now });
  }

  /** A run starting here (sync); keeps the record's creation time and a paused run's reply. */
  async running(ref: RunRef, previous: RunRecord | undefined): Promise<void> {
    await this.#store.put({
      ...base(ref),
      status: 'running',
      ...(previous?.reply === undefined ? {} : { reply: previous.reply }),
      ...seqOf(previous),
      createdAt: previous?.createdAt ?? this.#now(),
      updatedAt: this.#now(),
    });
  }

  /** The reply of a finished sync run or resume. */
  async finished(ref: RunRef, previous: RunRecord | undefined, reply: Reply): Promise<void> {
    const createdAt = previous?.createdAt ?? this.#now();
    const updatedAt = this.#now();
    if (reply.status === 'completed') {
      await this.#store.put({
        ...base(ref),
        status: 'completed',
        reply: json(reply),
        createdAt,
        updatedAt,
      });
      return;
    }
    // A sync part of a run streams nothing, so the next seq is what the run had reached: on
    // the record, and in the paused reply as the worker writes it too.
    const nextSeq = runNextSeq(previous);
    await this.#store.put({
      ...base(ref),
      status: 'paused',
      reply: json({ ...reply, nextSeq }),
      nextSeq,
      createdAt,
      updatedAt,
    });
  }

  /** A failed sync run; a paused run's reply is kept so a later resume keeps its seq. */
  async failed(
    ref: RunRef,
    previous: RunRecord | undefined,
    error: { code: string; message: string },
  ): Promise<void> {
    await this.#store.put({
      ...base(ref),
      status: 'failed',
      error,
      ...(previous?.reply === undefined ? {} : { reply: previous.reply }),
      ...seqOf(previous),
      createdAt: previous?.createdAt ?? this.#now(),
      updatedAt: this.#now(),
    });
  }
}

/** A run record as clients read it: one shape whatever path made it. */
export type PublicRunRecord = Omit<RunRecord, 'nextSeq' | 'turnsBefore' | 'owner' | 'incarnation'>;

/**
 * Without the worker's bookkeeping (`nextSeq`, `turnsBefore`) and the binding (`owner`, `incarnation`): a paused reply carries its seq
 * for the client, and a sync run has neither, so the answer has the same keys on every path.
 */
export function publicRun(record: RunRecord): PublicRunRecord {
  const { nextSeq: _seq, turnsBefore: _turns, owner: _o, incarnation: _i, ...shown } = record;
  return shown;
}

function base(ref: RunRef) {
  return {
    schemaVersion: 1 as const,
    runId: ref.runId,
    sessionId: ref.sessionId,
    ...(ref.owner === undefined ? {} : { owner: ref.owner }),
    ...(ref.incarnation === undefined ? {} : { incarnation: ref.incarnation }),
    agent: ref.agent,
  };
}

/** A run that already sent events keeps its next seq through a sync part (none is sent). */
function seqOf(previous: RunRecord | undefined): { nextSeq?: number } {
  const nextSeq = runNextSeq(previous);
  return nextSeq === 0 ? {} : { nextSeq };
}

/** Replies are JSON by construction (the runtime validated them); the store checks again. */
function json(value: unknown): JsonValue {
  return value as JsonValue;
}
