import type { SessionData } from '../../core/session.js';
import type { Logs } from './session-log.js';

/** What a warm instance knows of a session it loaded or saved: valid while the head's version is. */
export interface CachedSession {
  version: number;
  /** The log generation and its last committed segment (none for the old single-item layout). */
  gen?: string | undefined;
  last: string;
  segs: number;
  /** The head's `expiresAt` at this version (epoch seconds; none: it does not expire). */
  expiresAt?: number | undefined;
  /** When the generation's first turn item expires (epoch seconds). */
  exp: number;
  /** The whole session, private to the store (callers get copies). */
  data: SessionData;
  /** The logs of `data` (their items are `data`'s arrays). */
  logs: Logs;
  /** The session's JSON size, what the cache's bound counts. */
  bytes: number;
}

/** Least recently used sessions up to a byte budget: a warm Lambda serves many sessions. */
export class SessionCache {
  readonly #entries = new Map<string, CachedSession>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get(sessionId: string): CachedSession | undefined {
    const entry = this.#entries.get(sessionId);
    if (entry) {
      this.#entries.delete(sessionId);
      this.#entries.set(sessionId, entry);
    }
    return entry;
  }

  set(sessionId: string, entry: CachedSession): void {
    this.delete(sessionId);
    if (entry.bytes > this.#maxBytes) return;
    this.#entries.set(sessionId, entry);
    this.#bytes += entry.bytes;
    for (const [id, oldest] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(id);
      this.#bytes -= oldest.bytes;
    }
  }

  delete(sessionId: string): void {
    const entry = this.#entries.get(sessionId);
    if (!entry) return;
    this.#entries.delete(sessionId);
    this.#bytes -= entry.bytes;
  }
}
