import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createTracer,
  flushTracer,
  type MultiTracer,
  OtelTracer,
} from '../../../lib/tracing/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { startFakeDaemon } from '../../unit/tracing/helpers.js';
import { otelRuntime } from './otel-setup.js';
import { type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.js';

const server = useScriptedModelServer();
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

function scriptToolTurn(args: Record<string, unknown> = { city: 'Paris' }, text = 'Sunny.') {
  server.push(
    {
      toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: args }],
      usage: { inputTokens: 31, outputTokens: 7 },
    },
    { text, usage: { inputTokens: 45, outputTokens: 3 } },
  );
}

const op = (spans: ReceivedSpan[], name: string) =>
  spans.filter((s) => s.attributes['gen_ai.operation.name'] === name);

describe('otel backend over OTLP/HTTP', () => {
  it('exports the span tree of a paused and resumed run with GenAI attributes', async () => {
    // Prepare
    const tracer = new OtelTracer({
      env: {
        AGENT_KERNEL_TRACING: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k%3D1',
        AGENT_KERNEL_SERVICE_NAME: 'weather-agent',
        AWS_LAMBDA_FUNCTION_NAME: 'worker-fn',
        AWS_REGION: 'eu-west-1',
      },
    });
    const { runtime, calls } = otelRuntime(server, tracer, { confirm: true });
    scriptToolTurn();

    // Act: nothing leaves before flush; each flush sends what its invocation made.
    const paused = await runtime.run('assistant', 's-otel', 'Weather?');
    const beforeFlush = receiver.requests.length;
    await tracer.flush();
    const done = await runtime.resume('s-otel', paused.runId, [
      { id: 'call_w1', status: 'approved' },
    ]);
    await tracer.flush();
    await tracer.close();

    // Assess
    expect(paused.status).toBe('paused');
    expect(done).toMatchObject({ status: 'completed', text: 'Sunny.' });
    expect(calls).toHaveLength(1);
    expect(beforeFlush).toBe(0);
    expect(receiver.requests).toHaveLength(2);
    for (const req of receiver.requests) {
      expect(req.path).toBe('/v1/traces');
      expect(req.headers['x-collector-key']).toBe('k=1');
      expect(req.headers['content-type']).toContain('application/json');
    }
    const spans = receiver.spans();
    const runs = op(spans, 'invoke_agent');
    expect(runs.map((r) => r.name)).toEqual(['invoke_agent assistant', 'invoke_agent assistant']);
    expect(runs.map((r) => r.attributes['agent_kernel.outcome'])).toEqual(['paused', 'completed']);
    expect(new Set(runs.map((r) => r.traceId)).size).toBe(2);
    for (const run of runs) {
      expect(run.parentSpanId ?? '').toBe('');
      expect(run.attributes).toMatchObject({
        'gen_ai.agent.name': 'assistant',
        'gen_ai.conversation.id': 's-otel',
        'agent_kernel.run_id': paused.runId,
        'agent_kernel.framework': 'openai',
      });
    }
    const models = op(spans, 'chat');
    expect(models.length).toBeGreaterThanOrEqual(2);
    expect(models.map((m) => m.attributes['gen_ai.usage.input_tokens'])).toEqual(
      expect.arrayContaining([31, 45]),
    );
    expect(models.map((m) => m.attributes['gen_ai.usage.output_tokens'])).toEqual(
      expect.arrayContaining([7, 3]),
    );
    for (const model of models) {
      expect(model.name).toBe('chat scripted-model');
      expect(model.attributes['gen_ai.request.model']).toBe('scripted-model');
      expect(model.attributes['gen_ai.conversation.id']).toBe('s-otel');
      expect(runs.map((r) => r.spanId)).toContain(model.parentSpanId);
    }
    const tools = op(spans, 'execute_tool');
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      name: 'execute_tool get_weather',
      traceId: runs[1]?.traceId,
      parentSpanId: runs[1]?.spanId,
      attributes: expect.objectContaining({
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'call_w1',
        'gen_ai.tool.type': 'function',
        'agent_kernel.outcome': 'ok',
      }),
    });
    // Payloads are off by default.
    expect(spans.some((s) => 'input.value' in s.attributes)).toBe(false);
    expect(runs[0]?.resource).toMatchObject({
      'service.name': 'weather-agent',
      'cloud.provider': 'aws',
      'cloud.platform': 'aws_lambda',
      'cloud.region': 'eu-west-1',
      'faas.name': 'worker-fn',
      'telemetry.sdk.language': 'nodejs',
    });
  });

  it('sends each preset to its URL with its auth header, several at once', async () => {
    // Prepare
    const tracer = createTracer({
      env: {
        AGENT_KERNEL_TRACING: 'langfuse,logfire,openllmetry',
        LANGFUSE_PUBLIC_KEY: 'pk-lf-public',
        LANGFUSE_SECRET_KEY: 'sk-lf-secret',
        LANGFUSE_BASE_URL: `${receiver.url}/langfuse`,
        LOGFIRE_TOKEN: 'pylf_v1_us_token',
        LOGFIRE_BASE_URL: `${receiver.url}/logfire`,
        TRACELOOP_API_KEY: 'tl-key',
        TRACELOOP_BASE_URL: `${receiver.url}/traceloop`,
      },
    });
    const { runtime } = otelRuntime(server, tracer);
    scriptToolTurn();

    // Act
    await runtime.run('assistant', 's-presets', 'Weather?');
    await flushTracer(tracer);
    await (tracer as OtelTracer).close();

    // Assess
    const byPath = new Map(receiver.requests.map((r) => [r.path, r]));
    expect([...byPath.keys()].sort()).toEqual([
      '/langfuse/api/public/otel/v1/traces',
      '/logfire/v1/traces',
      '/traceloop/v1/traces',
    ]);
    const basic = Buffer.from('pk-lf-public:sk-lf-secret').toString('base64');
    expect(byPath.get('/langfuse/api/public/otel/v1/traces')?.headers.authorization).toBe(
      `Basic ${basic}`,
    );
    expect(byPath.get('/logfire/v1/traces')?.headers.authorization).toBe('pylf_v1_us_token');
    expect(byPath.get('/traceloop/v1/traces')?.headers.authorization).toBe('Bearer tl-key');
    // openllmetry adds Traceloop's conventions next to GenAI's; the other presets get none.
    const spans = receiver.spans('/traceloop');
    const others = [...receiver.spans('/langfuse'), ...receiver.spans('/logfire')];
    expect(others.length).toBeGreaterThan(0);
    expect(JSON.stringify(others.map((s) => s.attributes))).not.toMatch(/"traceloop\./);
    expect(spans.find((s) => s.name === 'invoke_agent assistant')?.attributes).toMatchObject({
      'traceloop.span.kind': 'workflow',
      'traceloop.workflow.name': 'assistant',
      'traceloop.association.properties.session_id': 's-presets',
    });
    expect(spans.find((s) => s.name === 'execute_tool get_weather')?.attributes).toMatchObject({
      'traceloop.span.kind': 'tool',
      'traceloop.entity.name': 'get_weather',
    });
  });

  it('never exports a canary secret, with payloads on', async () => {
    // Prepare
    const API_KEY = 'sk-PLANTEDapikey00000000000';
    const TOOL_SECRET = 'pin-PLANTED-4417';
    const MODEL_SECRET = 'sk-PLANTEDmodelSecret123456';
    const tracer = new OtelTracer({
      env: {
        AGENT_KERNEL_TRACING: 'otlp',
        AGENT_KERNEL_TRACE_PAYLOADS: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OPENAI_API_KEY: API_KEY,
      },
    });
    const { runtime, calls } = otelRuntime(server, tracer, { apiKey: API_KEY });
    scriptToolTurn(
      { city: 'Paris', pin: TOOL_SECRET },
      `Done: pin ${TOOL_SECRET}, token ${MODEL_SECRET}.`,
    );

    // Act
    const reply = await runtime.run('assistant', 's-canary', 'Weather?');
    await tracer.close();

    // Assess: the secrets went through the run and payloads were recorded…
    expect(reply.status === 'completed' && reply.text).toContain(TOOL_SECRET);
    expect(calls).toEqual([{ city: 'Paris', pin: TOOL_SECRET }]);
    const bytes = receiver.requests.map((r) => JSON.stringify(r.headers) + r.body).join('\n');
    const tool = op(receiver.spans(), 'execute_tool')[0];
    expect(tool?.attributes['gen_ai.tool.call.arguments']).toContain('Paris');
    expect(tool?.attributes['gen_ai.tool.call.arguments']).toContain('[REDACTED]');
    expect(bytes).toContain('gen_ai.output.messages');
    // …and no exported byte holds one.
    for (const secret of [API_KEY, TOOL_SECRET, MODEL_SECRET]) expect(bytes).not.toContain(secret);
  });

  it('bounds flush when the collector hangs and exports nothing after it', async () => {
    // Prepare: a collector that never answers.
    const { createServer } = await import('node:http');
    const hung: unknown[] = [];
    const sink = createServer((req) => hung.push(req));
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const port = (sink.address() as { port: number }).port;
    const tracer = new OtelTracer({
      env: {
        AGENT_KERNEL_TRACING: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      },
      flushTimeoutMs: 300,
    });

    // Act
    tracer.startSpan('job', {}, { kind: 'run' }).end();
    const started = performance.now();
    await tracer.flush();
    const took = performance.now() - started;
    tracer.startSpan('late', {}, { kind: 'internal' }).end();
    await new Promise((resolve) => setTimeout(resolve, 400));

    // Assess: flush gave up in time; the late span waits for the next flush, unsent.
    expect(hung).toHaveLength(1);
    expect(took).toBeLessThan(1_000);
    await tracer.close();
    sink.closeAllConnections();
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  });
});

describe('cloudwatch and otel at once', () => {
  it('sends the same run to the X-Ray daemon and to the OTLP receiver', async () => {
    // Prepare
    const daemon = await startFakeDaemon();
    const tracer = createTracer({
      env: {
        AGENT_KERNEL_TRACING: 'cloudwatch,otlp',
        AWS_XRAY_DAEMON_ADDRESS: daemon.address,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      },
      sink: () => {},
    });
    const { runtime } = otelRuntime(server, tracer);
    scriptToolTurn();

    // Act
    const reply = await runtime.run('assistant', 's-both', 'Weather?');
    await flushTracer(tracer);
    const docs = await daemon.waitFor(4);
    await (tracer as MultiTracer).close();
    await daemon.close();

    // Assess: each backend has the whole tree, its tool under its run.
    expect(reply.status).toBe('completed');
    const kinds = docs.map((d) => d.annotations?.kind).sort();
    expect(kinds).toEqual(['model', 'model', 'run', 'tool']);
    const spans = receiver.spans();
    const [run] = op(spans, 'invoke_agent');
    expect(op(spans, 'chat')).toHaveLength(2);
    expect(op(spans, 'execute_tool')[0]?.parentSpanId).toBe(run?.spanId);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
  });
});
