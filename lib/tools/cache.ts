/** A small TTL cache of tool results; expired entries go when read or when the cache is full. */
export class ResultCache {
  readonly #entries = new Map<string, { value: unknown; expiresAt: number }>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: { max?: number; now?: () => number } = {}) {
    this.#max = options.max ?? 1_000;
    this.#now = options.now ?? Date.now;
  }

  get(key: string): { value: unknown } | undefined {
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return { value: hit.value };
  }

  set(key: string, value: unknown, ttlMs: number): void {
    if (this.#entries.size >= this.#max) {
      // Maps iterate in insertion order: the first key is the oldest.
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, { value, expiresAt: this.#now() + ttlMs });
  }
}
