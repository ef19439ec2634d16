/** Shared options of the in-memory stores: a clock (for tests) and a record lifetime. */
export interface MemoryStoreOptions {
  /** Lifetime of a record after its last write; default 7 days, like the DynamoDB stores. */
  ttlSeconds?: number;
  now?: () => number;
}

export const DEFAULT_TTL_SECONDS = 7 * 24 * 3600;

export class Clock {
  readonly now: () => number;
  readonly ttlMs: number;

  constructor(options: MemoryStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.ttlMs = (options.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000;
  }

  expiry(ttlSeconds?: number): number {
    return this.now() + (ttlSeconds === undefined ? this.ttlMs : ttlSeconds * 1000);
  }

  expired(expiresAt: number): boolean {
    return expiresAt <= this.now();
  }
}
