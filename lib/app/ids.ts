import { createHmac, randomBytes } from 'node:crypto';

/**
 * Where the deployment's id key comes from: every front door of one deployment must use the same
 * one (ws-message makes a WebSocket run's id, http the same request's after a retry). On AWS and
 * in the local stack it is a random key kept in the table (lib/stores/dynamodb/id-key-store.ts),
 * minted by the first function that needs it; without one, a key of this process.
 */
export type IdKeySource = () => Promise<Uint8Array>;

/** A key of this process only: enough where one process makes every id (tests, one server). */
export function processIdKey(): IdKeySource {
  const key = randomBytes(32);
  return () => Promise.resolve(key);
}

/**
 * The ids the server makes, from a keyed HMAC of who asked and what: the same request (a retry)
 * lands on the same ids, and nobody without the key can compute another's next id to take it
 * first. A run id includes the session's incarnation, so a requestId used again after a clear
 * names a new run (its own journal), never the cleared one's.
 */
export class ServerIds {
  readonly #source: IdKeySource;
  #key: Promise<Uint8Array> | undefined;

  constructor(source: IdKeySource) {
    this.#source = source;
  }

  /** The run of `requestId` in this life of the session, as a UUID-shaped id. */
  async runId(
    principal: string,
    sessionId: string,
    incarnation: string | undefined,
    requestId: string,
  ): Promise<string> {
    const hex = await this.#mac(['run', principal, sessionId, incarnation ?? '', requestId]);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  }

  /** The session a request naming none gets: a retry of it lands in the same one. */
  async sessionId(principal: string, requestId: string): Promise<string> {
    return `s-${(await this.#mac(['session', principal, requestId])).slice(0, 32)}`;
  }

  async #mac(parts: readonly string[]): Promise<string> {
    // A failed read is tried again on the next call, not cached.
    this.#key ??= this.#source().catch((err: unknown) => {
      this.#key = undefined;
      throw err;
    });
    return createHmac('sha256', await this.#key)
      .update(JSON.stringify(parts))
      .digest('hex');
  }
}
