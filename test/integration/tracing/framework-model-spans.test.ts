import { createOpenAI } from '@ai-sdk/openai';
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type Agent, Runtime, type StreamEvent } from '../../../lib/core/index.js';
import {
  AI_SDK_INTEGRATION,
  aiSdkAgent,
  aiSdkToolSet,
} from '../../../lib/frameworks/ai-sdk/index.js';
import { LANGGRAPH_INTEGRATION, langgraphAgent } from '../../../lib/frameworks/langgraph/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import {
  type AnyToolSpec,
  defineTool,
  Executor,
  InMemoryToolLedger,
} from '../../../lib/tools/index.js';
import {
  CloudWatchTracer,
  flattenSegment,
  type SegmentDocument,
} from '../../../lib/tracing/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { splitLines } from '../../unit/tracing/helpers.js';

/**
 * The ai-sdk and langgraph runners open a `model` span per model call (the AI SDK through a
 * language-model middleware, LangGraph through a LangChain callback handler), against the real
 * SDKs talking to the scripted model server over HTTP.
 */

const server = useScriptedModelServer();

type AgentFactory = (url: string, tools: readonly AnyToolSpec[], executor: Executor) => Agent;

const frameworks: { name: string; framework: string; agent: AgentFactory }[] = [
  {
    name: 'ai-sdk (Responses API)',
    framework: 'ai-sdk',
    agent: (url, tools, executor) =>
      aiSdkAgent({
        name: 'assistant',
        model: createOpenAI({ baseURL: url, apiKey: 'test-key' })('scripted-model'),
        tools: aiSdkToolSet(tools.map((spec) => AI_SDK_INTEGRATION.exportTool(spec, { executor }))),
      }),
  },
  {
    name: 'ai-sdk (Chat Completions)',
    framework: 'ai-sdk',
    agent: (url, tools, executor) =>
      aiSdkAgent({
        name: 'assistant',
        model: createOpenAI({ baseURL: url, apiKey: 'test-key' }).chat('scripted-model'),
        tools: aiSdkToolSet(tools.map((spec) => AI_SDK_INTEGRATION.exportTool(spec, { executor }))),
      }),
  },
  {
    name: 'langgraph (createReactAgent)',
    framework: 'langgraph',
    agent: (url, tools, executor) =>
      langgraphAgent({
        name: 'assistant',
        graph: createReactAgent({
          llm: new ChatOpenAI({
            model: 'scripted-model',
            apiKey: 'test-key',
            configuration: { baseURL: url },
            maxRetries: 0,
          }),
          tools: tools.map((spec) => LANGGRAPH_INTEGRATION.exportTool(spec, { executor })),
        }),
      }),
  },
];

function tracedRuntime(agent: AgentFactory, env: Record<string, string> = {}) {
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
  const runtime = new Runtime({
    sessions: new InMemorySessionStore(),
    agents: [agent(server.url, [weather], executor)],
    tracer,
  });
  return { runtime, tracer, docs, lines };
}

const byKind = (docs: readonly SegmentDocument[], kind: string) =>
  docs.filter((doc) => doc.annotations?.kind === kind);

const metadata = (doc: SegmentDocument | undefined) =>
  (doc?.metadata as { agent_kernel?: Record<string, unknown> } | undefined)?.agent_kernel ?? {};

describe.each(frameworks)('model spans: $name', ({ framework, agent }) => {
  it('a turn with one tool call has two model subsegments under the run, with token usage', async () => {
    // Prepare
    const { runtime, tracer, docs, lines } = tracedRuntime(agent);
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
    expect(run?.annotations).toMatchObject({ framework, outcome: 'completed' });
    const models = byKind(docs, 'model').sort((a, b) => a.start_time - b.start_time);
    const [tool] = byKind(docs, 'tool');
    expect(models).toHaveLength(2);
    // The AI SDK's provider model reports its URL: the remote node is named after the host.
    const node = framework === 'ai-sdk' ? new URL(server.url).hostname : 'model';
    for (const model of models) {
      expect(model).toMatchObject({
        name: node,
        namespace: 'remote',
        type: 'subsegment',
        parent_id: run?.id,
        trace_id: run?.trace_id,
        annotations: {
          kind: 'model',
          model: 'scripted-model',
          framework,
          sessionId: 's-tool',
          runId: reply.runId,
        },
      });
      expect(model.fault).toBeUndefined();
      expect(model.start_time).toBeGreaterThanOrEqual(run!.start_time);
      expect(model.end_time!).toBeLessThanOrEqual(run!.end_time!);
    }
    expect(metadata(models[0])).toMatchObject({ inputTokens: 11, outputTokens: 3 });
    expect(metadata(models[1])).toMatchObject({ inputTokens: 23, outputTokens: 5 });
    // The tool ran between the two model calls (the AI SDK starts it as soon as the call is
    // parsed, while the first model stream is still finishing).
    expect(tool).toMatchObject({ parent_id: run?.id, annotations: { tool: 'get_weather' } });
    expect(tool!.start_time).toBeGreaterThanOrEqual(models[0]!.start_time);
    expect(models[1]!.start_time).toBeGreaterThanOrEqual(tool!.end_time!);
    // Payloads are off by default.
    expect(JSON.stringify(models)).not.toContain('Paris');
    const { emf } = splitLines(lines);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ framework, InputTokens: 34, OutputTokens: 8, ToolCalls: 1 });
  });

  it('an erroring model call is a faulted model span', async () => {
    // Prepare
    const { runtime, tracer, docs, lines } = tracedRuntime(agent);
    server.push({ error: { status: 500, message: 'upstream broke' } });

    // Act
    await expect(runtime.run('assistant', 's-fail', 'Hi')).rejects.toMatchObject({
      code: 'model-error',
    });
    await tracer.close();

    // Assess
    const [run] = byKind(docs, 'run');
    const models = byKind(docs, 'model');
    expect(run).toMatchObject({ fault: true });
    expect(models).toHaveLength(1);
    expect(models[0]).toMatchObject({
      parent_id: run?.id,
      fault: true,
      annotations: { model: 'scripted-model' },
    });
    expect(models[0]?.end_time).toBeDefined();
    expect(models[0]?.cause?.exceptions?.length).toBeGreaterThan(0);
    expect(splitLines(lines).emf[0]).toMatchObject({ RunErrors: 1 });
  });

  it('an aborted run ends its in-flight model span', async () => {
    // Prepare
    const { runtime, tracer, docs } = tracedRuntime(agent);
    const controller = new AbortController();
    // Abort once the request is at the server (not on a timer: a request sent late would take the
    // next test's answer), before the model answers.
    server.push(async () => {
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return { text: 'too late' };
    });

    // Act: abort while the model has not answered yet.
    const events: StreamEvent[] = [];
    for await (const event of runtime.stream('assistant', 's-abort', 'Hi', {
      signal: controller.signal,
    })) {
      events.push(event);
    }
    await tracer.close();

    // Assess: the model span was sent, ended and faulted, under the run.
    expect(events.at(-1)?.type).toBe('run-error');
    const [run] = byKind(docs, 'run');
    const models = byKind(docs, 'model');
    expect(models).toHaveLength(1);
    expect(models[0]).toMatchObject({ parent_id: run?.id, fault: true });
    expect(models[0]?.end_time).toBeDefined();
    expect(models[0]?.in_progress).toBeUndefined();
  });

  it('records prompt and response only with payloads on, redacted', async () => {
    // Prepare
    const { runtime, tracer, docs } = tracedRuntime(agent, {
      AGENT_KERNEL_TRACE_PAYLOADS: 'true',
    });
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';
    server.push({ text: `Your key is ${secret}. Sunny.` });

    // Act
    await runtime.run('assistant', 's-payload', 'Weather in Oslo?');
    await tracer.close();

    // Assess
    const [model] = byKind(docs, 'model');
    const recorded = JSON.stringify(metadata(model));
    expect(recorded).toContain('Weather in Oslo?');
    expect(recorded).toContain('Sunny.');
    expect(JSON.stringify(docs)).not.toContain(secret);
  });
});

describe('model spans: langgraph with the caller’s own callbacks', () => {
  it('keeps a handler passed as a run option and adds the model span', async () => {
    // Prepare
    const { runtime, tracer, docs } = tracedRuntime(frameworks[2]!.agent);
    server.push({ text: 'Sunny.', usage: { inputTokens: 7, outputTokens: 2 } });
    const ended: string[] = [];
    const callbacks = [{ handleLLMEnd: (_output: unknown, runId: string) => ended.push(runId) }];

    // Act
    await runtime.run('assistant', 's-callbacks', 'Weather?', { runOptions: { callbacks } });
    await tracer.close();
    // A plain handler runs in LangChain's background queue.
    await awaitAllCallbacks();

    // Assess
    expect(ended).toHaveLength(1);
    expect(metadata(byKind(docs, 'model')[0])).toMatchObject({ inputTokens: 7, outputTokens: 2 });
  });
});
