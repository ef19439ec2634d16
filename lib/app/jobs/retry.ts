/**
 * The one retry-with-backoff of the application layer: post-turn steps (the worker's and the sync
 * path's record writes, deliveries, announcements), a claim given back, an idempotency
 * completion. Each caller says how many tries and until when; the pause doubles with jitter.
 */
export interface RetryOptions {
  /** Tries in all (default 5). */
  attempts?: number;
  /** First pause; doubled each time, with jitter (default 100 ms). */
  baseMs?: number;
  /** Epoch ms after which no new try starts (the function's deadline). */
  until?: number | undefined;
  /** The clock and the pause (tests); default Date.now and setTimeout. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** `fn` tried up to `attempts` times; the last error is thrown. */
export async function retrying<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 5;
  const baseMs = options.baseMs ?? 100;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const pause = baseMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
      const late = options.until !== undefined && now() + pause > options.until;
      if (attempt >= attempts || late) throw err;
      await sleep(pause);
    }
  }
}

/** `fn` retried; `true` once it succeeded, `false` (the last error to `failed`) if it never did. */
export async function settled(
  fn: () => Promise<unknown>,
  options: RetryOptions & { failed?: (err: unknown) => void } = {},
): Promise<boolean> {
  try {
    await retrying(fn, options);
    return true;
  } catch (err) {
    options.failed?.(err);
    return false;
  }
}
