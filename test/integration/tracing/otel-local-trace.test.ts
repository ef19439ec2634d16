import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { startFakeDaemon } from '../../unit/tracing/helpers.js';
import { connect, untilTerminal } from '../local/ws-client.js';
import { type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.js';

// One WebSocket `run` through ws-message → worker → fan-out with the functions' own tracers set to
// `cloudwatch,otlp`: the OTel spans (to a local OTLP/HTTP receiver) form one trace linked through
// the SQS `traceparent` message attribute, the X-Ray documents (to a UDP listener) one trace
// linked through `AWSTraceHeader`. The two carry different span ids, so each needs its own.
let stack: LocalStack;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let daemon: Awaited<ReturnType<typeof startFakeDaemon>>;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  daemon = await startFakeDaemon();
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TABLE_NAME', 'DYNAMODB_ENDPOINT']) {
    delete process.env[key];
  }
  // Read by the functions at cold start (lib/aws/middleware/observability.ts observability()).
  Object.assign(process.env, {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    AGENT_KERNEL_TRACING: 'cloudwatch,otlp',
    AWS_XRAY_DAEMON_ADDRESS: daemon.address,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  });
  stack = await startLocalStack();
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await daemon?.close();
});

async function until<T>(probe: () => T | undefined, budgetMs = 10_000): Promise<T> {
  const end = Date.now() + budgetMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('one OTel trace across ws-message, worker and fan-out (local stack, cloudwatch,otlp)', () => {
  it('exports the three functions spans in one trace, each invocation flushed', async () => {
    // Prepare
    const ws = await connect(stack.wsUrl, stack.token);
    const done = untilTerminal(ws, ['run-finished', 'run-error']);

    // Act
    ws.send(
      JSON.stringify({
        action: 'run',
        requestId: 'otel-1',
        agent: 'demo',
        sessionId: 'otel-session',
        input: 'weather in Paris?',
      }),
    );
    const messages = await done;
    ws.close();
    const runId = messages[0]?.runId as string;
    const named = (name: string): ReceivedSpan[] => receiver.spans().filter((s) => s.name === name);
    const fanouts = await until(() => {
      const found = named('fanout');
      return found.length > 0 && named('job').length > 0 ? found : undefined;
    });

    // Assess
    expect(messages.at(-1)?.events.at(-1)).toMatchObject({ type: 'run-finished' });
    const message = named('ws-message').find((s) => s.attributes['agent_kernel.run_id'] === runId);
    const job = named('job').find((s) => s.attributes['agent_kernel.run_id'] === runId);
    expect(message).toBeDefined();
    expect(job).toMatchObject({ traceId: message?.traceId, parentSpanId: message?.spanId });
    const run = receiver.spans().find((s) => s.name === 'invoke_agent demo');
    expect(run).toMatchObject({ traceId: message?.traceId, parentSpanId: job?.spanId });
    expect(run?.attributes).toMatchObject({
      'gen_ai.conversation.id': 'otel-session',
      'agent_kernel.run_id': runId,
    });
    const spans = receiver.spans().filter((s) => s.traceId === message?.traceId);
    expect(spans.some((s) => s.attributes['gen_ai.operation.name'] === 'chat')).toBe(true);
    expect(spans.some((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool')).toBe(true);
    for (const fanout of fanouts) {
      expect(fanout).toMatchObject({ traceId: message?.traceId, parentSpanId: job?.spanId });
      const delivery = spans.find((s) => s.name === 'deliver' && s.parentSpanId === fanout.spanId);
      expect(delivery).toBeDefined();
    }
    // Each function's service name is its resource.
    expect(new Set(spans.map((s) => s.resource['service.name'])).size).toBeGreaterThanOrEqual(3);
    // The X-Ray side: the worker's job is a segment of its own (its own node, named after the
    // worker), linked to the ws-message segment in the same trace.
    const xrayJob = await until(() =>
      daemon.documents.find((d) => d.annotations?.span === 'job' && d.annotations?.runId === runId),
    );
    const xrayMessage = daemon.documents.find((d) => d.id === xrayJob.parent_id);
    expect(xrayMessage).toMatchObject({
      trace_id: xrayJob.trace_id,
      annotations: { span: 'ws-message' },
    });
    expect(xrayJob.type).toBeUndefined();
    expect(xrayJob.name).not.toBe(xrayMessage?.name);
    // Different ids per backend: the OTel links above could not come from the X-Ray header.
    expect(xrayJob.id).not.toBe(job?.spanId);
  });

  it('flushes the stream function too: the spans of an SSE run arrive with no other invocation after it', async () => {
    // Act: the only invocation of this test is the stream function's.
    const res = await fetch(`${stack.streamUrl}/runs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stack.token}`,
        accept: 'text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ agent: 'demo', sessionId: 'otel-sse', input: 'weather in Paris?' }),
    });
    const body = await res.text();

    // Assess: its run span reaches the collector, as the buffered processor exports only on flush.
    expect(body).toContain('run-finished');
    const run = await until(() =>
      receiver
        .spans()
        .find(
          (s) =>
            s.name === 'invoke_agent demo' && s.attributes['gen_ai.conversation.id'] === 'otel-sse',
        ),
    );
    expect(run).toBeDefined();
  });
});
