import {
  type Connection,
  ConnectionNotFound,
  ConnectionSchema,
  type ConnectionStore,
  type Subscription,
} from '../../app/ports/connections.js';
import { InvalidRecord } from '../../core/stores.js';
import { Clock, type MemoryStoreOptions } from './clock.js';

interface Entry {
  connection: Connection;
  sessions: Map<string, Subscription['format']>;
  expiresAt: number;
}

/** WebSocket connections and their session subscriptions, in process memory. */
export class InMemoryConnectionStore implements ConnectionStore {
  readonly #connections = new Map<string, Entry>();
  readonly #clock: Clock;

  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = new Clock(options);
  }

  async connect(connection: Connection): Promise<void> {
    const parsed = ConnectionSchema.safeParse(connection);
    if (!parsed.success) {
      throw new InvalidRecord('connection', parsed.error.issues[0]?.message ?? 'invalid');
    }
    this.#connections.set(connection.connectionId, {
      connection: { ...parsed.data },
      sessions: new Map(),
      expiresAt: this.#clock.expiry(),
    });
  }

  async get(connectionId: string): Promise<(Connection & { sessions: string[] }) | undefined> {
    const entry = this.#live(connectionId);
    if (!entry) return undefined;
    return { ...entry.connection, sessions: [...entry.sessions.keys()].sort() };
  }

  async subscribe(
    connectionId: string,
    sessionId: string,
    format: Subscription['format'] = 'native',
  ): Promise<void> {
    const entry = this.#live(connectionId);
    if (!entry) throw new ConnectionNotFound(connectionId);
    entry.sessions.set(sessionId, format);
  }

  async unsubscribe(connectionId: string, sessionId: string): Promise<void> {
    this.#live(connectionId)?.sessions.delete(sessionId);
  }

  async subscribers(sessionId: string): Promise<Subscription[]> {
    const found: Subscription[] = [];
    for (const id of [...this.#connections.keys()].sort()) {
      const entry = this.#live(id);
      const format = entry?.sessions.get(sessionId);
      if (entry && format) found.push({ ...entry.connection, sessionId, format });
    }
    return found;
  }

  async disconnect(connectionId: string): Promise<void> {
    this.#connections.delete(connectionId);
  }

  #live(connectionId: string): Entry | undefined {
    const entry = this.#connections.get(connectionId);
    if (entry && this.#clock.expired(entry.expiresAt)) {
      this.#connections.delete(connectionId);
      return undefined;
    }
    return entry;
  }
}
