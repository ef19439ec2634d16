import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoClient } from '../../../lib/stores/index.js';
import {
  type DynamoProxy,
  SDK_ATTEMPTS,
  startDynamoProxy,
} from '../../helpers/faults/dynamo-proxy.js';
import { quickRetries, RETRY_WAIT_DIVISOR } from '../../helpers/quick-retries.js';

// The fault tests' clients (test/integration/stores/dynamo.ts) wait less between retries; this
// proves that is all that changes: the same attempts for a throttled call, the same error, and
// waits within the SDK's own bound divided by RETRY_WAIT_DIVISOR.
let proxy: DynamoProxy;
beforeAll(async () => {
  proxy = await startDynamoProxy(inject('dynaliteEndpoint'));
  proxy.setRule(() => true);
});
afterAll(async () => {
  await proxy.close();
});

async function throttledCall(quick: boolean) {
  const made = createDynamoClient({ endpoint: proxy.url, region: 'us-east-1' });
  const client = quick ? quickRetries(made) : made;
  const before = proxy.log.length;
  const err = await client
    .send(new GetItemCommand({ TableName: 'none', Key: { pk: { S: 'x' } } }))
    .then(
      () => undefined,
      (e: Error & { $metadata: Record<string, number> }) => e,
    );
  client.destroy();
  return { err, requests: proxy.log.length - before };
}

describe('quickRetries', () => {
  it('keeps the SDK’s attempts and error for a throttled call, and shortens only the waits', async () => {
    // Act
    const sdk = await throttledCall(false);
    const quick = await throttledCall(true);

    // Assess
    expect(sdk.requests).toBe(SDK_ATTEMPTS);
    expect(quick.requests).toBe(SDK_ATTEMPTS);
    expect(quick.err?.name).toBe('ProvisionedThroughputExceededException');
    expect(quick.err?.name).toBe(sdk.err?.name);
    expect(quick.err?.$metadata.attempts).toBe(sdk.err?.$metadata.attempts);
    // The SDK waits at most 1 s × 2^n before retry n + 1 of a throttled call (n = 0, 1, 2).
    const bound = [0, 1, 2].reduce((sum, n) => sum + 1000 * 2 ** n, 0) / RETRY_WAIT_DIVISOR;
    expect(quick.err?.$metadata.totalRetryDelay).toBeLessThanOrEqual(bound);
  });
});
