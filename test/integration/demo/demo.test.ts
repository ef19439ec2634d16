import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDemo } from '../../../examples/demo/agent.js';
import { demoResponder, startOfflineModel } from '../../../examples/demo/offline-model.js';
import type { RecordedRequest, ScriptedModelServer } from '../../../lib/testing/index.js';

let server: ScriptedModelServer;

beforeAll(async () => {
  server = await startOfflineModel();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

const sent = (request: RecordedRequest | undefined) => JSON.stringify(request?.body);

describe('demo agent against the offline model', () => {
  it('describes itself: a card with a description and a skill per tool', () => {
    // Act
    const card = createDemo({ baseURL: server.url, apiKey: 'x' }).runtime.agent('demo').card();

    // Assess
    expect(card.description).toMatch(/demo assistant/);
    expect(card.skills.map((s) => s.id)).toEqual(['get_weather', 'get_time', 'book_table']);
    expect(card.skills.every((s) => s.description.length > 0)).toBe(true);
  });

  it('gives the second turn of a session the first turn’s history', async () => {
    // Prepare
    const { runtime } = createDemo({ baseURL: server.url, apiKey: 'x' });

    // Act
    const first = await runtime.run('demo', 's-demo-history', 'What is the weather in Paris?');
    const second = await runtime.run('demo', 's-demo-history', 'what time is it?');

    // Assess
    expect(first).toMatchObject({ status: 'completed', text: expect.stringContaining('Paris') });
    expect(second).toMatchObject({ status: 'completed', text: expect.stringContaining('UTC') });
    // Each turn is a tool call and an answer: two model requests.
    expect(server.requests).toHaveLength(4);
    const secondTurn = sent(server.requests[2]);
    expect(secondTurn).toContain('What is the weather in Paris?');
    expect(secondTurn).toContain('get_weather');
    expect(secondTurn).toContain('Demo data: in Paris');
    expect(secondTurn).toContain('what time is it?');
    expect(sent(server.requests[1])).not.toContain('what time is it?');
  });

  it('shows the model a bad time zone as a tool error, and the run completes', async () => {
    // Prepare
    const { runtime } = createDemo({ baseURL: server.url, apiKey: 'x' });

    // Act
    const reply = await runtime.run('demo', 's-demo-zone', 'What time is it in Mars/Olympus?');

    // Assess
    expect(reply).toMatchObject({
      status: 'completed',
      text: expect.stringContaining('Unknown time zone "Mars/Olympus"'),
    });
    const output = server.requests[1]?.body.input.at(-1);
    expect(output).toMatchObject({ type: 'function_call_output' });
    expect(JSON.stringify(output)).toContain('Unknown time zone \\"Mars/Olympus\\"');
  });

  it('speaks Chat Completions with api: chat (OPENAI_API=chat), tools included', async () => {
    // Prepare: Chat Completions answers from the script (the offline responder reads Responses)
    const { runtime } = createDemo({ baseURL: server.url, apiKey: 'x', api: 'chat' });
    server.push(
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Oslo: made-up weather.' },
    );

    // Act
    const reply = await runtime.run('demo', 's-demo-chat', 'weather in Oslo?');

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'Oslo: made-up weather.' });
    expect(server.requests.map((r) => r.api)).toEqual(['chat', 'chat']);
    // The tool's result went back to the model as a Chat Completions tool message.
    expect(server.requests[1]?.body.messages.at(-1)).toMatchObject({ role: 'tool' });
    expect(sent(server.requests[1])).toContain('demo data (made up, not a real forecast)');
  });

  it('refuses an unknown OPENAI_API with a sentence', () => {
    expect(() => createDemo({ api: 'completions' as never })).toThrow(
      'OPENAI_API must be "responses" or "chat" (Chat Completions), not "completions".',
    );
  });

  it('streams the tool call and its result', async () => {
    // Prepare
    const { runtime } = createDemo({ baseURL: server.url, apiKey: 'x' });

    // Act
    const events = [];
    for await (const event of runtime.stream('demo', 's-demo-stream', 'weather in Oslo?')) {
      events.push(event);
    }

    // Assess
    const result = events.find((event) => event.type === 'tool-call-result');
    expect(result).toMatchObject({ toolName: 'get_weather', result: { city: 'Oslo' } });
    expect(events.at(-1)).toMatchObject({ type: 'run-finished' });
  });
});

describe('demoResponder', () => {
  const ask = (content: unknown) =>
    (demoResponder as (request: RecordedRequest) => unknown)({
      path: '/v1/responses',
      api: 'responses',
      stream: true,
      body: { input: [{ role: 'user', content }] },
      headers: {},
      receivedAt: 0,
    });

  it.each([
    ['What is the weather in New York today?', { city: 'New York' }],
    ['weather in oslo', { city: 'Oslo' }],
    ['Paris weather forecast for Paris', { city: 'Paris' }],
  ])('calls get_weather for %j', (question, args) => {
    expect(ask(question)).toEqual({ toolCalls: [{ name: 'get_weather', arguments: args }] });
  });

  it.each([
    ['what time is it?', 'UTC'],
    ['What time is it in Tokyo?', 'Asia/Tokyo'],
    ['time in new york please', 'America/New_York'],
    ['the time in Europe/Berlin', 'Europe/Berlin'],
    ['what time is it in Atlantis?', 'UTC'],
  ])('calls get_time for %j with %s', (question, timeZone) => {
    expect(ask(question)).toEqual({ toolCalls: [{ name: 'get_time', arguments: { timeZone } }] });
  });

  it('answers anything else as the offline model, quoting the user', () => {
    const turn = ask([{ type: 'input_text', text: 'Tell me a joke' }]) as { text: string };
    expect(turn.text).toContain('"Tell me a joke"');
    expect(turn.text).toContain('offline scripted model');
  });
});
