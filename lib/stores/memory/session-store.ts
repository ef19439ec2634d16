import { SessionConflict, SessionCorrupt } from '../../core/errors.js';
import {
  type SessionData,
  SessionDataSchema,
  type SessionStore,
  type StoredSession,
} from '../../core/session.js';

/**
 * Sessions in process memory, with the same contract as the DynamoDB store: stored as JSON text
 * (so callers never share objects with the store), checked on load, saved only at the expected
 * version.
 */
export class InMemorySessionStore implements SessionStore {
  readonly #items = new Map<string, { json: string; version: number }>();

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const item = this.#items.get(sessionId);
    if (!item) return undefined;
    const parsed = SessionDataSchema.safeParse(JSON.parse(item.json));
    if (!parsed.success) throw new SessionCorrupt(sessionId, parsed.error.issues[0]?.message ?? '');
    return { data: parsed.data, version: item.version };
  }

  async save(data: SessionData, expectedVersion: number): Promise<number> {
    const current = this.#items.get(data.id);
    const actual = current?.version ?? 0;
    if (actual !== expectedVersion) throw new SessionConflict(data.id, expectedVersion, actual);
    const version = actual + 1;
    this.#items.set(data.id, { json: JSON.stringify(data), version });
    return version;
  }

  async delete(sessionId: string): Promise<void> {
    this.#items.delete(sessionId);
  }

  /** Number of stored sessions (for tests and diagnostics). */
  get size(): number {
    return this.#items.size;
  }
}
