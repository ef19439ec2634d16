import { OpenAIProvider, Agent as SdkAgent, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Runtime } from '../../../lib/core/index.js';
import { OpenAIModule } from '../../../lib/frameworks/openai/index.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../../lib/stores/index.js';
import { createTracer, flushTracer, type MultiTracer } from '../../../lib/tracing/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { splitLines, startFakeDaemon } from '../../unit/tracing/helpers.js';
import { startOtlpReceiver } from './otlp-receiver.js';

/**
 * A native tool that throws is a failure in every backend, though the SDK hands the model an
 * error text and the run goes on: OTel status ERROR with `error.type` and an exception event,
 * an X-Ray `fault` with the cause, and `ToolErrors = 1` in the run's EMF line.
 */

const server = useScriptedModelServer();
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

function openaiRuntime(tracer: ReturnType<typeof createTracer>, execute: () => string) {
  const client = new OpenAI({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a city up',
    parameters: z.object({ city: z.string() }),
    execute,
  });
  const agent = new SdkAgent({ name: 'assistant', model: 'scripted-model', tools: [lookup] });
  const module = new OpenAIModule([agent], {
    runConfig: { modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }) },
  });
  return new Runtime({
    sessions: new InMemorySessionStore(),
    pausedRuns: new InMemoryPausedRunStore(),
    modules: [module],
    tracer,
  });
}

async function runWithTool(execute: () => string) {
  const lines: string[] = [];
  const tracer = createTracer({
    env: {
      AGENT_KERNEL_TRACING: 'cloudwatch,otlp',
      AWS_XRAY_DAEMON_ADDRESS: daemon.address,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    },
    sink: (line) => lines.push(line),
  });
  const runtime = openaiRuntime(tracer, execute);
  server.push(
    { toolCalls: [{ id: 'call_l1', name: 'lookup', arguments: { city: 'Paris' } }] },
    { text: 'Could not look it up.' },
  );
  const reply = await runtime.run('assistant', 's-native', 'Look Paris up');
  await flushTracer(tracer);
  const docs = await daemon.waitFor(4);
  await (tracer as MultiTracer).close();
  const toolSpan = receiver
    .spans()
    .find((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
  const toolDoc = docs.find((d) => d.annotations?.kind === 'tool');
  const runEmf = splitLines(lines).emf.find((l) => 'ToolCalls' in l);
  return { reply, toolSpan, toolDoc, runEmf };
}

describe('a native tool that throws (openai runner)', () => {
  it('is an error in OTel, X-Ray and EMF while the run completes', async () => {
    // Act
    const { reply, toolSpan, toolDoc, runEmf } = await runWithTool(() => {
      throw new Error('geocoder unreachable');
    });

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'Could not look it up.' });
    expect(toolSpan?.status?.code).toBe(2);
    expect(toolSpan?.attributes['error.type']).toBe('NativeToolFailed');
    expect(toolSpan?.events?.map((e) => e.name)).toContain('exception');
    expect(toolDoc?.fault).toBe(true);
    expect(toolDoc?.cause?.exceptions?.[0]).toMatchObject({ type: 'NativeToolFailed' });
    expect(runEmf).toMatchObject({ ToolCalls: 1, ToolErrors: 1 });
  });

  it('is a success in every backend when the tool returns', async () => {
    // Act
    const { reply, toolSpan, toolDoc, runEmf } = await runWithTool(() => 'Paris, FR');

    // Assess
    expect(reply.status).toBe('completed');
    expect(toolSpan?.status?.code ?? 0).toBe(0);
    expect(toolSpan?.attributes['error.type']).toBeUndefined();
    expect(toolDoc?.fault).toBeUndefined();
    expect(runEmf).toMatchObject({ ToolCalls: 1, ToolErrors: 0 });
  });
});
