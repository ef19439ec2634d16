import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { createTracer, flushTracer, type MultiTracer } from '../../../lib/tracing/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { splitLines, startFakeDaemon } from '../../unit/tracing/helpers.js';
import { type Body, type NativeRunner, nativeRunners } from './native-runners.js';
import { startOtlpReceiver } from './otlp-receiver.js';

/**
 * A native tool (the framework's own, never our executor) that throws is a failure in every
 * backend for each runner, though the framework hands the model an error and the run goes on:
 * OTel status ERROR with `error.type` and an exception event, an X-Ray `fault` with the cause,
 * and `ToolErrors = 1` in the run's EMF line. The OpenAI runner's case is native-tool-errors.test.ts.
 */

const server = useScriptedModelServer();

// The OpenAI SDK hides the thrown error's class (native-tool-errors.test.ts covers it).
const runners = nativeRunners.filter((r) => r.name !== 'openai');

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let daemon: Awaited<ReturnType<typeof startFakeDaemon>>;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
  daemon = await startFakeDaemon();
});
afterEach(async () => {
  await receiver.close();
  await daemon.close();
});

async function runWithTool(agent: NativeRunner['agent'], body: Body) {
  const lines: string[] = [];
  const tracer = createTracer({
    env: {
      AGENT_KERNEL_TRACING: 'cloudwatch,otlp',
      AWS_XRAY_DAEMON_ADDRESS: daemon.address,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    },
    sink: (line) => lines.push(line),
  });
  const runtime = new Runtime({
    sessions: new InMemorySessionStore(),
    agents: [await agent(server.url, body)],
    tracer,
  });
  server.push(
    { toolCalls: [{ id: 'call_l1', name: 'lookup', arguments: { city: 'Paris' } }] },
    { text: 'Could not look it up.' },
  );
  const reply = await runtime.run('assistant', 's-native', 'Look Paris up');
  await flushTracer(tracer);
  // The run's segment, the tool's and the two model calls' subsegments.
  const docs = await daemon.waitFor(4);
  await (tracer as MultiTracer).close();
  const toolSpans = receiver
    .spans()
    .filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
  const toolDocs = docs.filter((d) => d.annotations?.kind === 'tool');
  const runEmf = splitLines(lines).emf.find((l) => 'ToolCalls' in l);
  // The model read the tool's outcome: the second request carries it.
  const toolResultSent = JSON.stringify(server.requests.at(-1)?.body ?? {});
  return { reply, toolSpans, toolDocs, runEmf, toolResultSent };
}

describe.each(runners)('a native tool of the $name runner', ({ agent }) => {
  it('that throws is an error in OTel, X-Ray and EMF while the run completes', async () => {
    // Act
    const { reply, toolSpans, toolDocs, runEmf, toolResultSent } = await runWithTool(
      agent,
      async () => {
        throw new TypeError('geocoder unreachable');
      },
    );

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'Could not look it up.' });
    expect(toolResultSent).toContain('geocoder unreachable');
    expect(toolSpans).toHaveLength(1);
    const [span] = toolSpans;
    expect(span?.status?.code).toBe(2);
    expect(span?.attributes['error.type']).toBe('TypeError');
    expect(span?.attributes['gen_ai.tool.name']).toBe('lookup');
    const exception = span?.events?.find((e) => e.name === 'exception');
    const message = exception?.attributes?.find((a) => a.key === 'exception.message');
    expect(message?.value.stringValue).toContain('geocoder unreachable');
    expect(toolDocs).toHaveLength(1);
    expect(toolDocs[0]?.fault).toBe(true);
    expect(toolDocs[0]?.cause?.exceptions?.[0]).toMatchObject({ type: 'TypeError' });
    expect(runEmf).toMatchObject({ ToolCalls: 1, ToolErrors: 1 });
  });

  it('that is throttled is a throttle in X-Ray, not a fault', async () => {
    // Act
    const { toolSpans, toolDocs, runEmf } = await runWithTool(agent, async () => {
      const err = new Error('slow down');
      err.name = 'ThrottlingException';
      throw err;
    });

    // Assess
    expect(toolSpans[0]?.attributes['error.type']).toBe('ThrottlingException');
    expect(toolDocs[0]).toMatchObject({ error: true, throttle: true });
    expect(toolDocs[0]?.fault).toBeUndefined();
    expect(runEmf).toMatchObject({ ToolErrors: 1 });
  });

  it('that returns is a success in every backend', async () => {
    // Act
    const { reply, toolSpans, toolDocs, runEmf } = await runWithTool(
      agent,
      async () => 'Paris, FR',
    );

    // Assess
    expect(reply.status).toBe('completed');
    expect(toolSpans).toHaveLength(1);
    expect(toolSpans[0]?.status?.code ?? 0).toBe(0);
    expect(toolSpans[0]?.attributes['error.type']).toBeUndefined();
    expect(toolDocs[0]?.fault).toBeUndefined();
    expect(toolDocs[0]?.error).toBeUndefined();
    expect(runEmf).toMatchObject({ ToolCalls: 1, ToolErrors: 0 });
  });
});
