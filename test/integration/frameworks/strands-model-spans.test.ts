import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { offlineBedrock } from '../../../examples/strands/bedrock.js';
import { Runtime, type StreamEvent } from '../../../lib/core/index.js';
import { STRANDS_INTEGRATION, strandsAgent } from '../../../lib/frameworks/strands/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { defineTool, Executor, InMemoryToolLedger } from '../../../lib/tools/index.js';
import {
  CloudWatchTracer,
  flattenSegment,
  type SegmentDocument,
} from '../../../lib/tracing/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { splitLines } from '../../unit/tracing/helpers.js';

/**
 * The strands runner opens a `model` span per model call (an `InvokeModelStage` middleware),
 * against the real SDK talking to the scripted model server's Converse API.
 */

const server = useScriptedModelServer();

function tracedRuntime(env: Record<string, string> = {}) {
  const docs: SegmentDocument[] = [];
  const lines: string[] = [];
  const tracer = new CloudWatchTracer({
    env,
    emitter: { send: (doc) => docs.push(...flattenSegment(doc)) },
    sink: (line) => lines.push(line),
  });
  const weather = defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    input: z.object({ city: z.string().min(1) }),
    handler: (args) => ({ city: args.city, forecast: 'sunny' }),
  });
  const executor = new Executor({ ledger: new InMemoryToolLedger() });
  const tools = [STRANDS_INTEGRATION.exportTool(weather, { executor })];
  const runtime = new Runtime({
    sessions: new InMemorySessionStore(),
    agents: [strandsAgent({ name: 'assistant', model: offlineBedrock(server.url), tools })],
    tracer,
  });
  return { runtime, tracer, docs, lines };
}

const byKind = (docs: readonly SegmentDocument[], kind: string) =>
  docs.filter((doc) => doc.annotations?.kind === kind);

const metadata = (doc: SegmentDocument | undefined) =>
  (doc?.metadata as { agent_kernel?: Record<string, unknown> } | undefined)?.agent_kernel ?? {};

describe('model spans: strands (Bedrock Converse)', () => {
  it('a turn with one tool call has two model subsegments under the run, with token usage', async () => {
    // Prepare
    const { runtime, tracer, docs, lines } = tracedRuntime();
    server.push(
      {
        toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }],
        usage: { inputTokens: 11, outputTokens: 3 },
      },
      { text: 'Sunny in Paris.', usage: { inputTokens: 23, outputTokens: 5 } },
    );

    // Act
    const reply = await runtime.run('assistant', 's-tool', 'Weather in Paris?');
    await tracer.close();

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'Sunny in Paris.' });
    const [run] = byKind(docs, 'run');
    expect(run?.annotations).toMatchObject({ framework: 'strands', outcome: 'completed' });
    const models = byKind(docs, 'model').sort((a, b) => a.start_time - b.start_time);
    const [tool] = byKind(docs, 'tool');
    expect(models).toHaveLength(2);
    for (const model of models) {
      expect(model).toMatchObject({
        parent_id: run?.id,
        trace_id: run?.trace_id,
        annotations: { kind: 'model', model: 'scripted-model', framework: 'strands' },
      });
      expect(model.fault).toBeUndefined();
    }
    expect(metadata(models[0])).toMatchObject({ inputTokens: 11, outputTokens: 3 });
    expect(metadata(models[1])).toMatchObject({ inputTokens: 23, outputTokens: 5 });
    expect(tool).toMatchObject({ parent_id: run?.id, annotations: { tool: 'get_weather' } });
    expect(tool!.start_time).toBeGreaterThanOrEqual(models[0]!.end_time!);
    expect(models[1]!.start_time).toBeGreaterThanOrEqual(tool!.end_time!);
    expect(JSON.stringify(models)).not.toContain('Paris');
    const { emf } = splitLines(lines);
    expect(emf[0]).toMatchObject({ framework: 'strands', InputTokens: 34, OutputTokens: 8 });
  });

  it('an erroring model call is a faulted model span', async () => {
    // Prepare
    const { runtime, tracer, docs } = tracedRuntime();
    server.push({ error: { status: 500, message: 'upstream broke' } });

    // Act
    await expect(runtime.run('assistant', 's-fail', 'Hi')).rejects.toMatchObject({
      code: 'model-error',
    });
    await tracer.close();

    // Assess
    const [run] = byKind(docs, 'run');
    const models = byKind(docs, 'model');
    expect(models).toHaveLength(1);
    expect(models[0]).toMatchObject({ parent_id: run?.id, fault: true });
    expect(models[0]?.end_time).toBeDefined();
  });

  it('an aborted run ends its in-flight model span', async () => {
    // Prepare
    const { runtime, tracer, docs } = tracedRuntime();
    server.push({ text: 'too late', delayMs: 2_000 });
    const controller = new AbortController();

    // Act: abort while the model has not answered yet.
    const events: StreamEvent[] = [];
    for await (const event of runtime.stream('assistant', 's-abort', 'Hi', {
      signal: controller.signal,
    })) {
      events.push(event);
      if (event.type === 'run-started') setTimeout(() => controller.abort(), 100);
    }
    await tracer.close();

    // Assess
    expect(events.at(-1)?.type).toBe('run-error');
    const models = byKind(docs, 'model');
    expect(models).toHaveLength(1);
    expect(models[0]).toMatchObject({ fault: true });
    expect(models[0]?.in_progress).toBeUndefined();
  });

  it('records prompt and response only with payloads on, redacted', async () => {
    // Prepare
    const { runtime, tracer, docs } = tracedRuntime({ AGENT_KERNEL_TRACE_PAYLOADS: 'true' });
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';
    server.push({ text: `Your key is ${secret}. Sunny.` });

    // Act
    await runtime.run('assistant', 's-payload', 'Weather in Oslo?');
    await tracer.close();

    // Assess
    const recorded = JSON.stringify(metadata(byKind(docs, 'model')[0]));
    expect(recorded).toContain('Weather in Oslo?');
    expect(recorded).toContain('Sunny.');
    expect(JSON.stringify(docs)).not.toContain(secret);
  });
});
