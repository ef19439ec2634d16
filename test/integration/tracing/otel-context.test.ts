import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inSpan } from '../../../lib/core/index.js';
import { OtelTracer, parseTraceHeader } from '../../../lib/tracing/index.js';
import { startOtlpReceiver } from './otlp-receiver.js';

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

function tracer(env: Record<string, string> = {}) {
  return new OtelTracer({
    env: { AGENT_KERNEL_TRACING: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...env },
  });
}

describe('otel trace context', () => {
  it("continues Lambda's trace even when X-Ray does not sample it", async () => {
    // Prepare: Lambda without active tracing still sets a header, with Sampled=0.
    const root = '1-6b0e4a91-4f1925a44a98feb6840ce290';
    const t = tracer({ _X_AMZN_TRACE_ID: `Root=${root};Parent=53995c3f42cd8ad8;Sampled=0` });

    // Act
    await inSpan(t, 'invoke', {}, {}, async () => undefined);
    await t.close();

    // Assess
    const [span] = receiver.spans();
    expect(span).toMatchObject({
      name: 'invoke',
      traceId: '6b0e4a914f1925a44a98feb6840ce290',
      parentSpanId: '53995c3f42cd8ad8',
    });
  });

  it('hands another process an X-Ray header that continues the same trace', async () => {
    // Prepare
    const sender = tracer();
    const receiverSide = tracer();

    // Act: the sender's header travels (as in an SQS message) to a span of another tracer.
    let header: string | undefined;
    await inSpan(sender, 'ws-message', {}, {}, async (span) => {
      header = span.traceHeader();
    });
    await inSpan(receiverSide, 'job', {}, { traceHeader: header }, async () => undefined);
    await sender.close();
    await receiverSide.close();

    // Assess: a valid X-Ray header (epoch-second trace id), and the job under the message.
    const parsed = parseTraceHeader(header ?? '');
    const epoch = Number.parseInt(parsed.traceId.slice(2, 10), 16);
    expect(Math.abs(epoch - Date.now() / 1000)).toBeLessThan(60);
    const message = receiver.spans().find((s) => s.name === 'ws-message');
    const job = receiver.spans().find((s) => s.name === 'job');
    expect(job).toMatchObject({ traceId: message?.traceId, parentSpanId: message?.spanId });
  });

  it('drops new traces the sample rate leaves out, and a malformed header starts a trace', async () => {
    // Prepare
    const none = tracer({ AGENT_KERNEL_TRACE_SAMPLE_RATE: '0' });
    const all = tracer();

    // Act
    await inSpan(none, 'dropped', {}, {}, async () => undefined);
    await inSpan(all, 'fresh', {}, { traceHeader: 'Root=garbage' }, async () => undefined);
    await none.close();
    await all.close();

    // Assess
    expect(receiver.spans().map((s) => [s.name, s.parentSpanId ?? ''])).toEqual([['fresh', '']]);
  });
});
