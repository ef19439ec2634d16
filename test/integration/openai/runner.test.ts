import { beforeEach, describe, expect, it } from 'vitest';
import { type StreamEvent, StreamEventSchema } from '../../../lib/core/events.js';
import { OpenAIRunner } from '../../../lib/frameworks/openai/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { collect, makeRuntime, toolCalls } from './setup.js';

const server = useScriptedModelServer();

beforeEach(() => {
  toolCalls.length = 0;
});

const types = (events: StreamEvent[]) => events.map((e) => e.type);

describe.each([
  ['responses', true],
  ['chat completions', false],
])('OpenAI runner over the %s API', (_api, useResponses) => {
  it('gives the second turn the first turn’s history', async () => {
    // Prepare
    const { runtime } = makeRuntime(server, useResponses);
    server.push({ text: 'Nice to meet you, Ada.' }, { text: 'Your name is Ada.' });

    // Act
    const first = await runtime.run('assistant', 's-history', 'My name is Ada.');
    const second = await runtime.run('assistant', 's-history', 'What is my name?');

    // Assess
    expect(first).toMatchObject({ status: 'completed', text: 'Nice to meet you, Ada.' });
    expect(second).toMatchObject({ status: 'completed', text: 'Your name is Ada.' });
    const sent = JSON.stringify(server.requests[1]?.body);
    expect(sent).toContain('My name is Ada.');
    expect(sent).toContain('Nice to meet you, Ada.');
    expect(sent).toContain('What is my name?');
    expect(JSON.stringify(server.requests[0]?.body)).not.toContain('What is my name?');
  });

  it('streams a tool call as start, args, end, result with the SDK’s call id', async () => {
    // Prepare
    const { runtime, sessions } = makeRuntime(server, useResponses);
    server.push(
      { toolCalls: [{ id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { text: 'It is sunny in Paris.' },
    );

    // Act
    const events = await collect(runtime.stream('assistant', 's-tool', 'Weather in Paris?'));

    // Assess
    for (const event of events) expect(StreamEventSchema.safeParse(event).success).toBe(true);
    const toolEvents = events.filter((e) => e.type.startsWith('tool-call'));
    expect(types(toolEvents)).toEqual([
      'tool-call-start',
      ...Array(toolEvents.length - 3).fill('tool-call-args'),
      'tool-call-end',
      'tool-call-result',
    ]);
    expect(toolEvents.length).toBeGreaterThanOrEqual(4);
    for (const event of toolEvents) expect(event).toMatchObject({ toolCallId: 'call_weather_1' });
    expect(toolEvents[0]).toMatchObject({ toolName: 'get_weather' });
    const args = toolEvents
      .filter((e) => e.type === 'tool-call-args')
      .map((e) => (e.type === 'tool-call-args' ? e.delta : ''))
      .join('');
    expect(JSON.parse(args)).toEqual({ city: 'Paris' });
    const result = toolEvents.at(-1);
    expect(JSON.stringify(result)).toContain('sunny');
    // Text arrives after the tool, inside one message.
    const text = events
      .filter((e) => e.type === 'text-delta')
      .map((e) => (e.type === 'text-delta' ? e.delta : ''));
    expect(text.join('')).toBe('It is sunny in Paris.');
    expect(text.length).toBeGreaterThan(1);
    const afterTool = types(events).slice(types(events).indexOf('tool-call-result'));
    expect(afterTool).toEqual(
      expect.arrayContaining(['message-start', 'text-delta', 'message-end']),
    );
    expect(afterTool.indexOf('message-start')).toBeLessThan(afterTool.indexOf('message-end'));
    expect(types(events)[0]).toBe('run-started');
    expect(events.at(-1)).toMatchObject({
      type: 'run-finished',
      reply: { text: 'It is sunny in Paris.' },
    });
    // The tool ran inside the run's tool context, and its context change was stored.
    expect(toolCalls).toEqual([{ city: 'Paris', runId: events[0]?.runId, sessionId: 's-tool' }]);
    expect((await sessions.load('s-tool'))?.data.context).toEqual({ lastCity: 'Paris' });
  });

  it('turns a 500 from the model into run-error with a readable message and stores nothing', async () => {
    // Prepare
    const { runtime, sessions } = makeRuntime(server, useResponses);
    server.push({ text: 'First answer.' });
    await runtime.run('assistant', 's-fail', 'Hello');
    const before = await sessions.load('s-fail');
    server.push({ error: { status: 500, message: 'upstream exploded' } });

    // Act
    const events = await collect(runtime.stream('assistant', 's-fail', 'Again'));

    // Assess
    const last = events.at(-1);
    expect(last).toMatchObject({ type: 'run-error', code: 'model-error' });
    expect(last?.type === 'run-error' && last.message).toMatch(/HTTP 500.*upstream exploded/);
    expect(types(events)).not.toContain('run-finished');
    expect(await sessions.load('s-fail')).toEqual(before);
  });
});

describe('OpenAI runner', () => {
  it('rejects run() on a 429 with a rate-limit code and leaves the session unchanged', async () => {
    // Prepare
    const { runtime, sessions } = makeRuntime(server);
    server.push({ error: { status: 429, message: 'slow down' } });

    // Act
    const attempt = runtime.run('assistant', 's-429', 'Hi');

    // Assess
    await expect(attempt).rejects.toMatchObject({ code: 'model-rate-limited', status: 429 });
    expect(await sessions.load('s-429')).toBeUndefined();
  });

  it('passes run options through to the SDK (maxTurns) and refuses reserved ones', async () => {
    // Prepare
    const { runtime } = makeRuntime(server);
    server.push(
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'never' },
    );

    // Act
    const limited = runtime.run('assistant', 's-opts', 'Weather?', { runOptions: { maxTurns: 1 } });
    const reserved = runtime.run('assistant', 's-opts', 'Weather?', {
      runOptions: { stream: true },
    });

    // Assess
    await expect(limited).rejects.toMatchObject({ code: 'max-turns-exceeded' });
    await expect(reserved).rejects.toMatchObject({ code: 'reserved-run-option' });
    expect(() => new OpenAIRunner().reservedRunOptions.session).not.toThrow();
  });

  it('sends images and files as input parts and reports token usage', async () => {
    // Prepare
    const { runtime } = makeRuntime(server);
    server.push({ text: 'A red dot.', usage: { inputTokens: 42, outputTokens: 7 } });

    // Act
    const reply = await runtime.run('assistant', 's-image', [
      { type: 'text', text: 'What is this?' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'file', data: 'JVBERi0=', mimeType: 'application/pdf', name: 'doc.pdf' },
    ]);

    // Assess
    expect(reply).toMatchObject({
      text: 'A red dot.',
      usage: { inputTokens: 42, outputTokens: 7 },
    });
    const sent = JSON.stringify(server.requests[0]?.body);
    expect(sent).toContain('data:image/png;base64,iVBORw0KGgo=');
    expect(sent).toContain('doc.pdf');
  });

  it('streams reasoning as reasoning-start, -delta, -end before the message', async () => {
    // Prepare
    const { runtime } = makeRuntime(server);
    server.push({ reasoning: 'The user greets me.', text: 'Hello!' });

    // Act
    const events = await collect(runtime.stream('assistant', 's-reason', 'Hi'));

    // Assess
    const kinds = types(events);
    expect(kinds).toContain('reasoning-delta');
    expect(kinds.indexOf('reasoning-start')).toBeLessThan(kinds.indexOf('reasoning-end'));
    expect(kinds.indexOf('reasoning-end')).toBeLessThan(kinds.indexOf('message-start'));
    const reasoning = events.map((e) => (e.type === 'reasoning-delta' ? e.delta : '')).join('');
    expect(reasoning).toBe('The user greets me.');
  });
});
