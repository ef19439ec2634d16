import { createHash } from 'node:crypto';
import { RequestConflict, RequestInProgress } from './errors.js';
import { settled } from './jobs/retry.js';
import { IdempotencyKeyReused, type IdempotencyStore } from './ports/idempotency.js';

export interface IdempotencyOptions<A> {
  /** The key parts for these arguments (scoped by principal by the caller); none: not idempotent. */
  key: (args: A) => readonly string[] | undefined;
  /** What must be equal for a retry; the same key with another payload is `request-conflict`. */
  payload: (args: A) => unknown;
  /** How a conflict or an in-progress retry names the key to the client. */
  describe: (args: A) => string;
  /**
   * A claim not completed within this lapses (a crashed holder does not block forever). Keep it
   * above the longest the call can run, or a retry could run it a second time.
   */
  inProgressMs?: (args: A) => number | undefined;
}

/**
 * Wraps `fn` so one key runs it once (Powertools' `makeIdempotent` is the model): the first call
 * claims the key and stores its result; a retry with the same payload gets that result, with
 * another payload `request-conflict`, while the first still runs `request-in-progress`. A
 * failure releases the key, so the retry runs again.
 */
export function makeIdempotent<A, R>(
  store: IdempotencyStore | undefined,
  fn: (args: A) => Promise<R>,
  options: IdempotencyOptions<A>,
): (args: A) => Promise<R> {
  return async (args) => {
    const parts = options.key(args);
    if (!store || !parts) return fn(args);
    const key = `request:${digest(parts)}`;
    const inProgressMs = options.inProgressMs?.(args);
    const claim = await store
      .claim(key, {
        fingerprint: digest([JSON.stringify(options.payload(args) ?? null)]),
        ...(inProgressMs ? { inProgressMs } : {}),
      })
      .catch((err: unknown) => {
        throw err instanceof IdempotencyKeyReused
          ? new RequestConflict(options.describe(args))
          : err;
      });
    if (claim.outcome === 'completed') return claim.result as R;
    if (claim.outcome === 'in-progress') throw new RequestInProgress(options.describe(args));
    let result: R;
    try {
      result = await fn(args);
    } catch (err) {
      await store.release(key, claim.token).catch(() => undefined);
      throw err;
    }
    // The work is done: a failed completion must not fail it (a retry would redo it). The claim
    // then lapses in progress; a few tries first.
    await settled(() => store.complete(key, claim.token, result), { attempts: 4, baseMs: 200 });
    return result;
  };
}

function digest(parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}
