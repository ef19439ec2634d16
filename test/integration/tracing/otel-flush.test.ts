import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withLogging } from '../../../lib/aws/middleware/observability.js';
import { startChildSpan } from '../../../lib/core/index.js';
import { fakeLambdaContext } from '../../../lib/testing/index.js';
import { OtelTracer } from '../../../lib/tracing/index.js';
import { startOtlpReceiver } from './otlp-receiver.js';

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
const tracers: OtelTracer[] = [];

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await Promise.all(tracers.splice(0).map((t) => t.close()));
  await receiver.close();
});

function otel(endpoint: string): OtelTracer {
  const tracer = new OtelTracer({
    env: { AGENT_KERNEL_TRACING: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
  });
  tracers.push(tracer);
  return tracer;
}

describe('the otel backend in a Lambda handler', () => {
  it('has exported the invocation spans when the handler returns', async () => {
    // Prepare
    const tracer = otel(receiver.url);
    const logger = new Logger({ serviceName: 'flush-test', logLevel: 'ERROR' });
    const handler = withLogging(
      logger,
      async () => {
        startChildSpan('deliver', 'delivery', { events: 2 }).end();
        return { statusCode: 200 };
      },
      { tracer, span: 'http' },
    );

    // Act
    const response = await handler({}, fakeLambdaContext('http-fn'));
    const seen = receiver.spans().map((s) => s.name);

    // Assess: both spans arrived before the response was handed back.
    expect(response).toEqual({ statusCode: 200 });
    expect(seen.sort()).toEqual(['deliver', 'http']);
  });

  it('answers within the invocation deadline when the collector hangs', async () => {
    // Prepare: a collector that never answers; 400 ms left in the invocation.
    const stuck: unknown[] = [];
    const hung = createServer((req) => stuck.push(req));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const tracer = otel(`http://127.0.0.1:${(hung.address() as AddressInfo).port}`);
    const logger = new Logger({ serviceName: 'flush-test', logLevel: 'ERROR' });
    const handler = withLogging(logger, async () => 'ok', { tracer, span: 'invoke' });

    // Act
    const started = performance.now();
    const response = await handler({}, fakeLambdaContext('invoke-fn', 400));
    const took = performance.now() - started;

    // Assess: the export was attempted, the answer did not wait for it past the budget.
    expect(response).toBe('ok');
    expect(stuck).toHaveLength(1);
    expect(took).toBeLessThan(400);
    hung.closeAllConnections();
    await new Promise<void>((resolve) => hung.close(() => resolve()));
  });
});
