import {
  DEFAULT_EVENTS_TTL_SECONDS,
  type RunEventStore,
  SeqTaken,
  type StoredBatch,
  type StoredPage,
} from '../../app/ports/run-events.js';
import type { StreamEvent } from '../../core/events.js';
import type { Binding } from '../../core/ownership.js';
import { Clock, type MemoryStoreOptions } from './clock.js';

interface Kept {
  readonly json: string;
  readonly expiresAt: number;
  /** When it was stored: not part of the content a second writer is compared with. */
  readonly at: number;
}

/** Stored events in process memory (JSON text), first writer wins per (run, seq), with a TTL. */
export class InMemoryRunEventStore implements RunEventStore {
  readonly #runs = new Map<string, Map<number, Kept>>();
  readonly #clock: Clock;

  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = new Clock({ ttlSeconds: DEFAULT_EVENTS_TTL_SECONDS, ...options });
  }

  async append(
    message: { sessionId: string; runId: string; seq: number; events: readonly StreamEvent[] },
    binding: Binding,
  ): Promise<void> {
    const key = `${message.sessionId}\u0000${message.runId}`;
    const run = this.#runs.get(key) ?? new Map<number, Kept>();
    this.#runs.set(key, run);
    const batch: StoredBatch = { seq: message.seq, events: message.events, ...bindingOf(binding) };
    const json = JSON.stringify(batch);
    const existing = run.get(message.seq);
    if (existing && !this.#clock.expired(existing.expiresAt)) {
      if (existing.json === json) return;
      throw new SeqTaken(message.runId, message.seq);
    }
    run.set(message.seq, { json, expiresAt: this.#clock.expiry(), at: this.#clock.now() });
  }

  async read(
    sessionId: string,
    runId: string,
    options: { after: number; limit: number },
  ): Promise<StoredPage> {
    const live = this.#live(sessionId, runId).filter((b) => b.seq > options.after);
    return { batches: live.slice(0, options.limit), more: live.length > options.limit };
  }

  async last(sessionId: string, runId: string): Promise<StoredBatch | undefined> {
    return this.#live(sessionId, runId).at(-1);
  }

  #live(sessionId: string, runId: string): StoredBatch[] {
    const run = this.#runs.get(`${sessionId}\u0000${runId}`);
    if (!run) return [];
    return [...run.values()]
      .filter((kept) => !this.#clock.expired(kept.expiresAt))
      .map((kept) => ({ ...(JSON.parse(kept.json) as StoredBatch), at: kept.at }))
      .sort((a, b) => a.seq - b.seq);
  }
}

function bindingOf(binding: Binding) {
  return {
    ...(binding.owner === undefined ? {} : { owner: binding.owner }),
    ...(binding.incarnation === undefined ? {} : { incarnation: binding.incarnation }),
  };
}
