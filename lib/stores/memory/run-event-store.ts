import {
  checkRange,
  DEFAULT_EVENTS_TTL_SECONDS,
  lastSeqOf,
  type RunEventStore,
  SeqTaken,
  type StoredBatch,
  type StoredMessage,
  type StoredPage,
} from '../../app/ports/run-events.js';
import type { Binding } from '../../core/ownership.js';
import { Clock, type MemoryStoreOptions } from './clock.js';

interface Kept {
  /** The range's messages (JSON text): what a second writer is compared with. */
  readonly json: string;
  readonly binding: { owner?: string; incarnation?: string };
  readonly expiresAt: number;
  readonly at: number;
}

/**
 * Stored events in process memory: one kept range per first seq (as DynamoDB keeps one item),
 * first writer wins per first seq, with a TTL.
 */
export class InMemoryRunEventStore implements RunEventStore {
  readonly #runs = new Map<string, Map<number, Kept>>();
  readonly #clock: Clock;

  readonly flushMs: number | undefined;

  constructor(options: MemoryStoreOptions & { flushMs?: number } = {}) {
    this.#clock = new Clock({ ttlSeconds: DEFAULT_EVENTS_TTL_SECONDS, ...options });
    this.flushMs = options.flushMs;
  }

  async append(
    range: { sessionId: string; runId: string; messages: readonly StoredMessage[] },
    binding: Binding,
  ): Promise<void> {
    const first = checkRange(range.messages);
    const key = `${range.sessionId}\u0000${range.runId}`;
    const run = this.#runs.get(key) ?? new Map<number, Kept>();
    this.#runs.set(key, run);
    const json = JSON.stringify(range.messages.map(plain));
    const existing = run.get(first);
    if (existing && !this.#clock.expired(existing.expiresAt)) {
      if (existing.json === json) return;
      throw new SeqTaken(range.runId, first);
    }
    run.set(first, {
      json,
      binding: bindingOf(binding),
      expiresAt: this.#clock.expiry(),
      at: this.#clock.now(),
    });
  }

  async read(
    sessionId: string,
    runId: string,
    options: { after: number; limit: number },
  ): Promise<StoredPage> {
    const live = this.#live(sessionId, runId).filter((b) => lastSeqOf(b) > options.after);
    return { batches: live.slice(0, options.limit), more: live.length > options.limit };
  }

  async last(sessionId: string, runId: string): Promise<StoredBatch | undefined> {
    return this.#live(sessionId, runId).at(-1);
  }

  #live(sessionId: string, runId: string): StoredBatch[] {
    const run = this.#runs.get(`${sessionId}\u0000${runId}`);
    if (!run) return [];
    return [...run.entries()]
      .filter(([, kept]) => !this.#clock.expired(kept.expiresAt))
      .sort(([a], [b]) => a - b)
      .flatMap(([, kept]) =>
        (JSON.parse(kept.json) as StoredMessage[]).map((m) => ({
          ...m,
          ...kept.binding,
          at: kept.at,
        })),
      );
  }
}

function plain(m: StoredMessage): StoredMessage {
  return {
    seq: m.seq,
    ...(m.from === undefined ? {} : { from: m.from }),
    events: m.events,
  };
}

function bindingOf(binding: Binding) {
  return {
    ...(binding.owner === undefined ? {} : { owner: binding.owner }),
    ...(binding.incarnation === undefined ? {} : { incarnation: binding.incarnation }),
  };
}
