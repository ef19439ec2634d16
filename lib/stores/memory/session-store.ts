import { SessionConflict, SessionCorrupt } from '../../core/errors.js';
import type { SessionData, SessionStore, StoredSession } from '../../core/session.js';
import { checkSessionData } from '../../core/session-check.js';
import { InvalidRecord } from '../../core/stores.js';
import {
  copyStoredJson,
  jsonProblem,
  NOT_PLAIN_JSON,
  parseStoredJson,
  toStoredJson,
} from '../json.js';
import { Clock, type MemoryStoreOptions } from './clock.js';

/** A stored session: its own copy (what a JSON round trip gives), checked once, when saved. */
interface Item {
  readonly check: { readonly data: SessionData } | { readonly problem: string };
  readonly version: number;
  readonly expiresAt: number;
}

/**
 * Sessions in process memory, with the same contract as the DynamoDB store: stored as what a
 * JSON round trip gives (so callers never share objects with the store), refused on load when
 * not a valid session, saved only at the expected version, absent once expired. The store keeps
 * its own deep copy and hands out copies of it: plain JSON (every runner's state) is copied by
 * hand, without writing and re-reading text on every turn.
 */
export class InMemorySessionStore implements SessionStore {
  readonly #items = new Map<string, Item>();
  readonly #clock: Clock;

  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = new Clock(options);
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const item = this.#live(sessionId);
    if (!item) return undefined;
    if ('problem' in item.check) throw new SessionCorrupt(sessionId, item.check.problem);
    return { data: copyOwn(item.check.data) as SessionData, version: item.version };
  }

  async save(data: SessionData, expectedVersion: number): Promise<number> {
    const copy = storedCopy(data);
    const actual = this.#live(data.id)?.version ?? 0;
    if (actual !== expectedVersion) throw new SessionConflict(data.id, expectedVersion, actual);
    const version = actual + 1;
    // The copy is the store's own: its check holds until the next save.
    const parsed = checkSessionData(copy);
    this.#items.set(data.id, {
      check: parsed.success ? { data: parsed.data } : { problem: parsed.message },
      version,
      expiresAt: this.#clock.expiry(),
    });
    return version;
  }

  async delete(sessionId: string): Promise<void> {
    this.#items.delete(sessionId);
  }

  /** Number of stored sessions (for tests and diagnostics). */
  get size(): number {
    return this.#items.size;
  }

  #live(sessionId: string): Item | undefined {
    const item = this.#items.get(sessionId);
    if (item && this.#clock.expired(item.expiresAt)) {
      this.#items.delete(sessionId);
      return undefined;
    }
    return item;
  }
}

/**
 * A copy of the store's own data for a caller: plain JSON by construction (a JSON round trip's
 * result, without `__proto__` keys), so no check is needed on the way.
 */
function copyOwn(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyOwn(value[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  // Own keys only: an enumerable key someone put on Object.prototype is not copied in.
  for (const key of Object.keys(value)) out[key] = copyOwn((value as Record<string, unknown>)[key]);
  return out;
}

/** What storing `data` as JSON text and reading it back gives; the text only when needed. */
function storedCopy(data: SessionData): unknown {
  const copy = copyStoredJson(data);
  if (copy !== NOT_PLAIN_JSON) return copy;
  try {
    return parseStoredJson(toStoredJson(data));
  } catch (err) {
    throw new InvalidRecord('session', jsonProblem(err));
  }
}
