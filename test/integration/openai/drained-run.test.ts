import { OpenAIProvider, Agent as SdkAgent, tool } from '@openai/agents';
import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { StreamEvent } from '../../../lib/core/events.js';
import type { PostHook } from '../../../lib/core/hooks.js';
import type { Span, SpanOptions, Tracer } from '../../../lib/core/tracer.js';
import { OpenAIModule } from '../../../lib/frameworks/openai/index.js';
import { Runtime } from '../../../lib/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { collect, toolCalls, weather } from './setup.js';

// `Runtime.run` takes the SDK's non-streaming path unless a post-hook must see the stream.
const server = useScriptedModelServer();

beforeEach(() => {
  toolCalls.length = 0;
});

/** Spans by kind, with the name of their parent, so a test can see model calls under the run. */
function recordingTracer() {
  const spans: { name: string; kind?: string; parent?: string; ended: boolean }[] = [];
  const names = new WeakMap<Span, string>();
  const tracer: Tracer = {
    startSpan(name: string, _attributes?: unknown, options?: SpanOptions): Span {
      const record = {
        name,
        kind: options?.kind,
        parent: options?.parent ? names.get(options.parent) : undefined,
        ended: false,
      };
      spans.push(record);
      const span: Span = {
        setAttributes() {},
        setPayload() {},
        recordError() {},
        end() {
          record.ended = true;
        },
        traceHeader: () => undefined,
      };
      names.set(span, name);
      return span;
    },
  };
  return { tracer, spans };
}

function makeRuntime(postHooks: PostHook[] = [], useResponses = true, tools = [weather]) {
  const client = new OpenAI({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
  const provider = new OpenAIProvider({ openAIClient: client, useResponses });
  const assistant = new SdkAgent({
    name: 'assistant',
    instructions: 'You are helpful.',
    model: 'scripted-model',
    tools,
  });
  const sessions = new InMemorySessionStore();
  const { tracer, spans } = recordingTracer();
  const module = new OpenAIModule([assistant], { runConfig: { modelProvider: provider } });
  const runtime = new Runtime({ sessions, modules: [module], postHooks, tracer });
  return { runtime, sessions, spans };
}

const streamed = () => server.requests.map((request) => request.stream);

describe.each([
  ['responses', true],
  ['chat completions', false],
])('Runtime.run over the %s API', (_api, useResponses) => {
  it('asks the model without streaming and runs tools, history and spans as before', async () => {
    // Prepare
    const { runtime, spans } = makeRuntime([], useResponses);
    server.push(
      { toolCalls: [{ id: 'call_w_1', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'It is sunny in Oslo.' },
      { text: 'You asked about Oslo.' },
    );

    // Act
    const first = await runtime.run('assistant', 's-drained', 'Weather in Oslo?');
    const second = await runtime.run('assistant', 's-drained', 'What did I ask?');

    // Assess
    expect(first).toMatchObject({ status: 'completed', text: 'It is sunny in Oslo.' });
    expect(second).toMatchObject({ status: 'completed', text: 'You asked about Oslo.' });
    expect(streamed()).toEqual([false, false, false]);
    expect(toolCalls).toEqual([expect.objectContaining({ city: 'Oslo' })]);
    const sent = JSON.stringify(server.requests[2]?.body);
    expect(sent).toContain('It is sunny in Oslo.');
    expect(sent).toContain('call_w_1');
    const models = spans.filter((span) => span.kind === 'model');
    expect(models).toHaveLength(3);
    for (const span of models) expect(span).toMatchObject({ parent: 'run', ended: true });
    expect(spans.filter((span) => span.kind === 'tool')).toHaveLength(1);
  });

  it('keeps streaming when a post-hook has onStreamEvent, and the hook sees token deltas', async () => {
    // Prepare
    const seen: StreamEvent['type'][] = [];
    const hook: PostHook = {
      name: 'watch',
      onStreamEvent: (event) => {
        seen.push(event.type);
        return undefined;
      },
    };
    const { runtime } = makeRuntime([hook], useResponses);
    server.push({ text: 'A reply long enough to come in several deltas.' });

    // Act
    const reply = await runtime.run('assistant', 's-hooked', 'Hello');

    // Assess
    expect(reply).toMatchObject({
      status: 'completed',
      text: 'A reply long enough to come in several deltas.',
    });
    expect(streamed()).toEqual([true]);
    expect(seen.filter((type) => type === 'text-delta').length).toBeGreaterThan(1);
  });

  it('applies an onRun-only post-hook on the non-streaming path', async () => {
    // Prepare
    const hook: PostHook = {
      name: 'shout',
      onRun: (_turn, reply) => ({ ...reply, text: reply.text.toUpperCase() }),
    };
    const { runtime } = makeRuntime([hook], useResponses);
    server.push({ text: 'quiet words' });

    // Act
    const reply = await runtime.run('assistant', 's-onrun', 'Hello');

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'QUIET WORDS' });
    expect(streamed()).toEqual([false]);
  });

  it('still streams Runtime.stream', async () => {
    // Prepare
    const { runtime } = makeRuntime([], useResponses);
    server.push({ text: 'Streamed as ever.' });

    // Act
    const events = await collect(runtime.stream('assistant', 's-stream', 'Hello'));

    // Assess
    expect(events.at(-1)).toMatchObject({ type: 'run-finished' });
    expect(streamed()).toEqual([true]);
  });

  it("stops on the caller's abort signal, which the SDK's non-streaming run is given", async () => {
    // Prepare: a tool aborts the caller's signal; the SDK must stop before asking the model again.
    const caller = new AbortController();
    const stop = tool({
      name: 'stop_now',
      description: 'Stops the run',
      parameters: z.object({}),
      execute: async () => {
        caller.abort();
        return 'stopped';
      },
    });
    const { runtime, sessions } = makeRuntime([], useResponses, [stop]);
    server.push(
      { toolCalls: [{ id: 'call_stop_1', name: 'stop_now', arguments: {} }] },
      { text: 'Never asked for.' },
    );

    // Act
    const run = runtime.run('assistant', 's-abort', 'Stop', { signal: caller.signal });

    // Assess
    await expect(run).rejects.toMatchObject({ code: 'run-aborted' });
    expect(streamed()).toEqual([false]);
    expect(await sessions.load('s-abort')).toBeUndefined();
  });

  it('throws the typed error of a failed model call', async () => {
    // Prepare
    const { runtime, sessions } = makeRuntime([], useResponses);
    server.push({ error: { status: 500, message: 'upstream exploded' } });

    // Act
    const failed = runtime.run('assistant', 's-fail', 'Hello');

    // Assess
    await expect(failed).rejects.toMatchObject({
      code: 'model-error',
      message: expect.stringMatching(/HTTP 500.*upstream exploded/),
    });
    expect(streamed()).toEqual([false]);
    expect(await sessions.load('s-fail')).toBeUndefined();
  });
});
