import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { inInvocationSpan } from '../../../lib/aws/middleware/handler-stack.js';
import { Runtime, traceChild } from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { OtelTracer } from '../../../lib/tracing/index.js';
import { FakeRunner, fakeAgent } from '../core/fake-runner.js';

// One set of spans, one view per preset: each backend gets what it documents, no more.
const FACADE = '53995c3f42cd8ad8';
const ENV = {
  LANGFUSE_PUBLIC_KEY: 'pk-lf-test',
  LANGFUSE_SECRET_KEY: 'sk-lf-test-secret',
  // Lambda's own trace header: its Parent is the facade segment, which no exporter sends.
  _X_AMZN_TRACE_ID: `Root=1-5759e988-bd862e3fe1be46a994272793;Parent=${FACADE};Sampled=1`,
};

async function traceOneRun() {
  const exporters = {
    otlp: new InMemorySpanExporter(),
    langfuse: new InMemorySpanExporter(),
    openllmetry: new InMemorySpanExporter(),
  };
  const tracer = new OtelTracer({
    env: ENV,
    config: { otel: ['otlp', 'langfuse', 'openllmetry'], capturePayloads: true, principal: 'hash' },
    exporters: [exporters.otlp, exporters.langfuse, exporters.openllmetry],
  });
  const runtime = new Runtime({
    sessions: new InMemorySessionStore(),
    agents: [fakeAgent(new FakeRunner(), { name: 'helper' })],
    tracer,
  });
  const handler = inInvocationSpan(tracer, 'http', async () => {
    await runtime.run('helper', 's-1', 'What is up?', { principal: 'ann' });
    await traceChild(
      'model',
      'model',
      { model: 'gpt-x', inputTokens: 3, outputTokens: 4 },
      async () => {},
    );
  });
  await handler({}, {} as never);
  await tracer.flush();
  const spans = Object.fromEntries(
    Object.entries(exporters).map(([preset, exporter]) => [preset, exporter.getFinishedSpans()]),
  );
  await tracer.close();
  return spans;
}

describe('OTel views per preset', () => {
  it('Traceloop keys and deprecated usage names reach only the openllmetry exporter', async () => {
    // Act
    const spans = await traceOneRun();

    // Assess
    const keys = (preset: string) => spans[preset]!.flatMap((s) => Object.keys(s.attributes));
    for (const preset of ['otlp', 'langfuse']) {
      expect(
        keys(preset).filter((k) => k.startsWith('traceloop.') || k.startsWith('llm.')),
      ).toEqual([]);
      expect(keys(preset)).not.toContain('gen_ai.usage.prompt_tokens');
      expect(keys(preset)).toContain('gen_ai.usage.input_tokens');
    }
    expect(keys('openllmetry')).toEqual(
      expect.arrayContaining(['traceloop.span.kind', 'gen_ai.usage.prompt_tokens']),
    );
  });

  it('Langfuse: a trace named after the agent, with session, hashed user, input and output, and a root', async () => {
    // Act
    const spans = await traceOneRun();

    // Assess
    const http = spans.langfuse!.find((s) => s.name === 'http');
    const run = spans.langfuse!.find((s) => s.name === 'invoke_agent helper');
    for (const span of [http, run]) {
      expect(span?.attributes).toMatchObject({
        'langfuse.trace.name': 'helper',
        'session.id': 's-1',
        'user.id': expect.stringMatching(/^sha256:[0-9a-f]{32}$/),
        'langfuse.trace.input': expect.stringContaining('What is up?'),
        'langfuse.trace.output': expect.stringContaining('echo'),
      });
    }
    expect(JSON.stringify(spans.langfuse!.map((s) => s.attributes))).not.toContain('"ann"');
    expect(http?.parentSpanContext).toBeUndefined();
    expect(run?.parentSpanContext?.spanId).toBe(http?.spanContext().spanId);
    // The other exporters keep Lambda's parent, as X-Ray links the trace through it.
    expect(spans.otlp!.find((s) => s.name === 'http')?.parentSpanContext?.spanId).toBe(FACADE);
  });
});
