import type { StreamEvent } from '../../core/events.js';
import type { Binding } from '../../core/ownership.js';

/**
 * Stored events (resumable streams, docs/architecture.md "Stored events"): every `events` message
 * a run delivers is kept for a window, one item per message, under (session, run, seq), stamped
 * with the session life that wrote it. A reconnecting client reads from a seq; a finished run
 * answers from here alone. The port is lib/app's (only the distribution delivers batches).
 */

/** How long a run's events are kept by default: 24 hours (`EVENTS_TTL_SECONDS`). */
export const DEFAULT_EVENTS_TTL_SECONDS = 24 * 3600;

/** One stored message: its seq, its events, the life it was written in. */
export interface StoredBatch {
  readonly seq: number;
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

/** A (run, seq) already stored with other content: the writer must not send its message. */
export class SeqTaken extends Error {
  constructor(runId: string, seq: number) {
    super(`Run "${runId}" already stored seq ${seq} with other content.`);
    this.name = 'SeqTaken';
  }
}

export interface RunEventStore {
  /**
   * Keeps one message, first writer wins: storing the same (run, seq) again with the same events
   * is a no-op, with other events it throws `SeqTaken` and keeps the first.
   */
  append(
    message: {
      sessionId: string;
      runId: string;
      seq: number;
      events: readonly StreamEvent[];
    },
    binding: Binding,
  ): Promise<void>;
  /** Up to `limit` batches with seq > `after` (−1: from the start), in seq order. */
  read(
    sessionId: string,
    runId: string,
    options: { after: number; limit: number },
  ): Promise<StoredPage>;
  /** The run's highest stored batch (one read), or undefined. */
  last(sessionId: string, runId: string): Promise<StoredBatch | undefined>;
}
