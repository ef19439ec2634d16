import type { StreamEvent } from '../../core/events.js';
import type { Binding } from '../../core/ownership.js';

/**
 * Stored events (resumable streams, docs/architecture.md "Stored events"): every `events` message
 * a run delivers is kept for a window, several messages (a contiguous seq range) per item, written
 * behind delivery (lib/app/jobs/stored-events.ts), stamped with the session life that wrote it. A reconnecting client reads from a seq; a finished run
 * answers from here alone. The port is lib/app's (only the distribution delivers batches).
 */

/** How long a run's events are kept by default: 24 hours (`EVENTS_TTL_SECONDS`). */
export const DEFAULT_EVENTS_TTL_SECONDS = 24 * 3600;

/** How often buffered messages are stored by default: 1.5 s (`EVENTS_FLUSH_MS`). */
export const DEFAULT_EVENTS_FLUSH_MS = 1500;

/**
 * One stored message: its seq, its events, the life it was written in. A void marker (`from`
 * set) covers `from…seq`: `seq` is one no attempt ever sent, the seqs before it (back to `from`)
 * ones an attempt that stopped may have sent but never stored, or reserved and never sent; its
 * one event is `run-retrying` with code `events-void`.
 */
export interface StoredBatch {
  readonly seq: number;
  readonly from?: number | undefined;
  readonly events: readonly StreamEvent[];
  readonly owner?: string | undefined;
  readonly incarnation?: string | undefined;
  /** When it was stored (epoch ms, the store's clock): the run timeline's time axis. */
  readonly at?: number | undefined;
}

export interface StoredPage {
  /** Batches with seq above `after`, in seq order. */
  readonly batches: readonly StoredBatch[];
  /** More batches follow the last one of this page. */
  readonly more: boolean;
}

/** A message to store: a marker carries `from` (the first seq it closes; `seq` the last). */
export interface StoredMessage {
  readonly seq: number;
  readonly from?: number | undefined;
  readonly events: readonly StreamEvent[];
}

/** The first seq a stored message covers: its item's key when it opens a range. */
export function firstSeqOf(message: { seq: number; from?: number | undefined }): number {
  return message.from ?? message.seq;
}

/** The last seq a stored message covers. */
export function lastSeqOf(message: { seq: number; from?: number | undefined }): number {
  return message.seq;
}

/** A range is non-empty and contiguous; returns its first seq. */
export function checkRange(messages: readonly StoredMessage[]): number {
  const first = messages[0];
  if (!first) throw new Error('A stored range holds at least one message.');
  let next = firstSeqOf(first);
  for (const m of messages) {
    if (firstSeqOf(m) !== next || m.seq < next) {
      throw new Error(`A stored range must be contiguous (seq ${m.seq}, expected ${next}).`);
    }
    next = lastSeqOf(m) + 1;
  }
  return firstSeqOf(first);
}

/** A (run, seq) already stored with other content: the writer must not send its message. */
export class SeqTaken extends Error {
  constructor(runId: string, seq: number) {
    super(`Run "${runId}" already stored seq ${seq} with other content.`);
    this.name = 'SeqTaken';
  }
}

export interface RunEventStore {
  /** How often a streaming worker stores what it buffered (default `DEFAULT_EVENTS_FLUSH_MS`). */
  readonly flushMs?: number | undefined;
  /**
   * Keeps a contiguous seq range of messages as one item, addressed by its first seq; first
   * writer wins: the same range again is a no-op, another one at that first seq throws
   * `SeqTaken` and keeps the first. Writers chain ranges (each starts right after the last
   * stored seq), so two attempts racing for a seq race for the same item.
   */
  append(
    range: { sessionId: string; runId: string; messages: readonly StoredMessage[] },
    binding: Binding,
  ): Promise<void>;
  /**
   * Up to `limit` messages whose seqs reach above `after` (−1: from the start), in seq order,
   * one per message (a marker whose range holds `after + 1` included).
   */
  read(
    sessionId: string,
    runId: string,
    options: { after: number; limit: number },
  ): Promise<StoredPage>;
  /** The run's highest stored message (one read), or undefined. */
  last(sessionId: string, runId: string): Promise<StoredBatch | undefined>;
}
