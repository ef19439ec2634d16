import { SessionConflict, SessionCorrupt } from '../../core/errors.js';
import type { SessionData, SessionStore, StoredSession } from '../../core/session.js';
import { checkSessionData } from '../../core/session-check.js';
import { InvalidRecord } from '../../core/stores.js';
import { jsonProblem, parseStoredJson, toStoredJson } from '../json.js';
import { Clock, type MemoryStoreOptions } from './clock.js';

/**
 * Sessions in process memory, with the same contract as the DynamoDB store: stored as JSON text
 * (so callers never share objects with the store), checked on load, saved only at the expected
 * version, absent once expired.
 */
export class InMemorySessionStore implements SessionStore {
  readonly #items = new Map<string, { json: string; version: number; expiresAt: number }>();
  readonly #clock: Clock;

  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = new Clock(options);
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const item = this.#live(sessionId);
    if (!item) return undefined;
    let value: unknown;
    try {
      value = parseStoredJson(item.json);
    } catch (err) {
      throw new SessionCorrupt(sessionId, jsonProblem(err));
    }
    const parsed = checkSessionData(value);
    if (!parsed.success) throw new SessionCorrupt(sessionId, parsed.message);
    return { data: parsed.data, version: item.version };
  }

  async save(data: SessionData, expectedVersion: number): Promise<number> {
    let json: string;
    try {
      json = toStoredJson(data);
    } catch (err) {
      throw new InvalidRecord('session', jsonProblem(err));
    }
    const actual = this.#live(data.id)?.version ?? 0;
    if (actual !== expectedVersion) throw new SessionConflict(data.id, expectedVersion, actual);
    const version = actual + 1;
    this.#items.set(data.id, { json, version, expiresAt: this.#clock.expiry() });
    return version;
  }

  async delete(sessionId: string): Promise<void> {
    this.#items.delete(sessionId);
  }

  /** Number of stored sessions (for tests and diagnostics). */
  get size(): number {
    return this.#items.size;
  }

  #live(sessionId: string) {
    const item = this.#items.get(sessionId);
    if (item && this.#clock.expired(item.expiresAt)) {
      this.#items.delete(sessionId);
      return undefined;
    }
    return item;
  }
}
