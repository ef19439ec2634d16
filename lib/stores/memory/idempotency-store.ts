import { randomUUID } from 'node:crypto';
import {
  type IdempotencyClaim,
  IdempotencyClaimLost,
  type IdempotencyClaimOptions,
  IdempotencyKeyReused,
  type IdempotencyStore,
} from '../../app/ports/idempotency.js';
import { InvalidRecord } from '../../core/stores.js';
import { jsonProblem, toStoredJson } from '../json.js';
import { Clock, type MemoryStoreOptions } from './clock.js';

export const DEFAULT_IN_PROGRESS_MS = 60_000;

interface Entry {
  token: string;
  fingerprint?: string;
  inProgressUntil: number;
  expiresAt: number;
  result?: string;
}

/** Idempotency records in process memory, with the DynamoDB store's semantics. */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  readonly #entries = new Map<string, Entry>();
  readonly #clock: Clock;

  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = new Clock(options);
  }

  async claim(key: string, options: IdempotencyClaimOptions = {}): Promise<IdempotencyClaim> {
    const now = this.#clock.now();
    const entry = this.#entries.get(key);
    if (entry && !this.#clock.expired(entry.expiresAt)) {
      if (options.fingerprint !== undefined && entry.fingerprint !== options.fingerprint) {
        throw new IdempotencyKeyReused(key);
      }
      if (entry.result !== undefined) {
        return { outcome: 'completed', result: JSON.parse(entry.result) };
      }
      if (entry.inProgressUntil > now) return { outcome: 'in-progress' };
    }
    const token = randomUUID();
    this.#entries.set(key, {
      token,
      ...(options.fingerprint === undefined ? {} : { fingerprint: options.fingerprint }),
      inProgressUntil: now + (options.inProgressMs ?? DEFAULT_IN_PROGRESS_MS),
      expiresAt: this.#clock.expiry(options.ttlSeconds),
    });
    return { outcome: 'claimed', token };
  }

  async complete(key: string, token: string, result: unknown): Promise<void> {
    let json: string;
    try {
      json = toStoredJson(result ?? null);
    } catch (err) {
      throw new InvalidRecord('idempotency result', jsonProblem(err));
    }
    const entry = this.#entries.get(key);
    if (entry?.token !== token || entry.result !== undefined) throw new IdempotencyClaimLost(key);
    entry.result = json;
  }

  async release(key: string, token: string): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry?.token === token && entry.result === undefined) this.#entries.delete(key);
  }
}
