import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** How much shorter than the SDK's own the retry waits are in tests. */
export const RETRY_WAIT_DIVISOR = 20;

interface Backoff {
  computeNextBackoffDelay(attempt: number): number;
}

/**
 * The client's own retry strategy (the same attempts, error classes, retry quota and jittered
 * exponential backoff), its waits divided by RETRY_WAIT_DIVISOR. The SDK waits 1 s × 2^n (times
 * a random factor) after a throttled call; the fault tests throttle hundreds of calls, which
 * spent minutes asleep while proving nothing the waits' length changes. Only the backoff is
 * touched (the field the SDK's own ConfiguredRetryStrategy sets), so whether and how often a
 * call is retried stays the SDK's; without that field the waits stay real (slow, still right).
 */
export function quickRetries<T extends DynamoDBClient>(client: T): T {
  const resolve = client.config.retryStrategy;
  const quickened = new WeakSet<object>();
  client.config.retryStrategy = async () => {
    const strategy = await resolve();
    const backoff = (strategy as { retryBackoffStrategy?: Backoff }).retryBackoffStrategy;
    if (backoff && !quickened.has(backoff)) {
      const full = backoff.computeNextBackoffDelay.bind(backoff);
      backoff.computeNextBackoffDelay = (attempt) => Math.floor(full(attempt) / RETRY_WAIT_DIVISOR);
      quickened.add(backoff);
    }
    return strategy;
  };
  return client;
}
