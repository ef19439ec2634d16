import { LlmAgent, LogLevel, setLogLevel } from '@google/adk';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Runtime, type StreamEvent } from '../../../lib/core/index.js';
import { ADK_INTEGRATION, adkAgent, geminiModel } from '../../../lib/frameworks/adk/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { defineTool, Executor, InMemoryToolLedger } from '../../../lib/tools/index.js';
import {
  CloudWatchTracer,
  flattenSegment,
  type SegmentDocument,
} from '../../../lib/tracing/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

setLogLevel(LogLevel.WARN);

/** What the contract suite does not cover for ADK: Gemini's wire details, spans, usage. */
const server = useScriptedModelServer();

function setup(tracer?: CloudWatchTracer) {
  const weather = defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    input: z.object({ city: z.string().min(1) }),
    handler: (args) => ({ city: args.city, forecast: 'sunny' }),
  });
  const executor = new Executor({ ledger: new InMemoryToolLedger() });
  const model = geminiModel({
    model: 'gemini-2.5-flash',
    apiKey: 'test-key',
    baseUrl: server.url.replace(/\/v1$/, ''),
  });
  const agent = new LlmAgent({
    name: 'assistant',
    instruction: 'You answer briefly.',
    model,
    tools: [ADK_INTEGRATION.exportTool(weather, { executor })],
  });
  return new Runtime({
    sessions: new InMemorySessionStore(),
    agents: [adkAgent(agent)],
    ...(tracer ? { tracer } : {}),
  });
}

async function abortOnceRequested(controller: AbortController): Promise<void> {
  while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
  controller.abort();
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('ADK runner over Gemini’s API', () => {
  it('sends Gemini requests (system instruction, function declarations): run to generateContent, stream to streamGenerateContent', async () => {
    // Prepare
    server.push({ text: 'Hi.' }, { text: 'Hi again.' });

    // Act
    await setup().run('assistant', 's-wire', 'Hello');
    await collect(setup().stream('assistant', 's-wire-stream', 'Hello'));

    // Assess
    const [request, streamed] = server.requests;
    expect(request).toMatchObject({
      api: 'gemini',
      stream: false,
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
    });
    expect(streamed).toMatchObject({
      stream: true,
      path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    });
    expect(JSON.stringify(request?.body.systemInstruction)).toContain('You answer briefly.');
    expect(request?.body.contents).toEqual([{ role: 'user', parts: [{ text: 'Hello' }] }]);
    const declarations = request?.body.tools?.[0]?.functionDeclarations;
    expect(declarations?.[0]).toMatchObject({
      name: 'get_weather',
      parametersJsonSchema: { type: 'object', required: ['city'] },
    });
    expect(request?.headers['x-goog-api-key']).toBe('test-key');
  });

  it('streams thoughts as reasoning and reports usage per step and per turn', async () => {
    // Prepare
    server.push({
      reasoning: 'The user greets me.',
      text: 'Hello to you too.',
      usage: { inputTokens: 12, outputTokens: 9 },
    });

    // Act
    const events = await collect(setup().stream('assistant', 's-think', 'Hello'));

    // Assess
    const types = events.map((e) => e.type);
    expect(types.indexOf('reasoning-start')).toBeLessThan(types.indexOf('reasoning-end'));
    expect(types.indexOf('reasoning-end')).toBeLessThan(types.indexOf('message-start'));
    const reasoning = events.flatMap((e) => (e.type === 'reasoning-delta' ? [e.delta] : []));
    expect(reasoning.join('')).toBe('The user greets me.');
    expect(events.find((e) => e.type === 'step-end')).toMatchObject({
      usage: { inputTokens: 12, outputTokens: 9 },
    });
    expect(events.at(-1)).toMatchObject({
      type: 'run-finished',
      reply: { text: 'Hello to you too.', usage: { inputTokens: 12, outputTokens: 9 } },
    });
  });

  it('sends images and files as inlineData and fileData parts', async () => {
    // Prepare
    server.push({ text: 'A PNG, a PDF and a link.' });

    // Act
    await setup().run('assistant', 's-media', [
      { type: 'text', text: 'What are these?' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'file', data: 'JVBERi0=', mimeType: 'application/pdf', name: 'doc.pdf' },
      { type: 'image', url: 'https://example.com/cat.jpg' },
    ]);

    // Assess
    expect(server.requests[0]?.body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'What are these?' },
          { inlineData: { data: 'iVBORw0KGgo=', mimeType: 'image/png' } },
          { inlineData: { data: 'JVBERi0=', mimeType: 'application/pdf' } },
          { fileData: { fileUri: 'https://example.com/cat.jpg', mimeType: 'image/jpeg' } },
        ],
      },
    ]);
  });

  it('an aborted run ends with run-error and its in-flight model span ended', async () => {
    // Prepare
    const docs: SegmentDocument[] = [];
    const tracer = new CloudWatchTracer({
      env: {},
      emitter: { send: (doc) => docs.push(...flattenSegment(doc)) },
      sink: () => undefined,
    });
    server.push({ text: 'too late', delayMs: 2_000 });
    const controller = new AbortController();

    // Act
    const events: StreamEvent[] = [];
    for await (const event of setup(tracer).stream('assistant', 's-abort', 'Hi', {
      signal: controller.signal,
    })) {
      events.push(event);
      // Abort once the model has the request (so no late request takes the next test's script).
      if (event.type === 'run-started') void abortOnceRequested(controller);
    }
    await tracer.close();

    // Assess
    expect(events.at(-1)?.type).toBe('run-error');
    const models = docs.filter((d) => d.annotations?.kind === 'model');
    expect(models).toHaveLength(1);
    expect(models[0]).toMatchObject({ fault: true });
    expect(models[0]?.end_time).toBeDefined();
  });

  it('derives its A2A card’s skills from the agent’s tools', () => {
    // Act
    const card = setup().agent('assistant').card();

    // Assess
    expect(card.skills).toEqual([
      expect.objectContaining({ name: 'get_weather', description: 'Current weather for a city' }),
    ]);
  });

  it('maps Gemini’s 429 (RESOURCE_EXHAUSTED) to model-rate-limited', async () => {
    // Prepare
    server.push({ error: { status: 429, message: 'Quota exceeded' } });

    // Act
    const run = setup().run('assistant', 's-429', 'Hi');

    // Assess
    await expect(run).rejects.toMatchObject({ code: 'model-rate-limited', status: 429 });
  });

  it('opens one model span per model call under the run, with token usage', async () => {
    // Prepare
    const docs: SegmentDocument[] = [];
    const tracer = new CloudWatchTracer({
      env: {},
      emitter: { send: (doc) => docs.push(...flattenSegment(doc)) },
      sink: () => undefined,
    });
    server.push(
      {
        toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }],
        usage: { inputTokens: 11, outputTokens: 3 },
      },
      { text: 'Sunny in Paris.', usage: { inputTokens: 23, outputTokens: 5 } },
    );

    // Act
    const reply = await setup(tracer).run('assistant', 's-spans', 'Weather in Paris?');
    await tracer.close();

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'Sunny in Paris.' });
    const run = docs.find((d) => d.annotations?.kind === 'run');
    const models = docs
      .filter((d) => d.annotations?.kind === 'model')
      .sort((a, b) => a.start_time - b.start_time);
    const tool = docs.find((d) => d.annotations?.kind === 'tool');
    expect(run?.annotations).toMatchObject({ framework: 'adk', outcome: 'completed' });
    expect(models).toHaveLength(2);
    for (const model of models) {
      expect(model).toMatchObject({
        parent_id: run?.id,
        annotations: { model: 'gemini-2.5-flash', framework: 'adk' },
      });
    }
    const usage = (doc: SegmentDocument | undefined) =>
      (doc?.metadata as { agent_kernel?: Record<string, unknown> } | undefined)?.agent_kernel;
    expect(usage(models[0])).toMatchObject({ inputTokens: 11, outputTokens: 3 });
    expect(usage(models[1])).toMatchObject({ inputTokens: 23, outputTokens: 5 });
    expect(models[1]!.start_time).toBeGreaterThanOrEqual(tool!.end_time!);
  });
});
