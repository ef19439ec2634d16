import type OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptEntry, ScriptedModelServer } from '../../../lib/testing/index.js';
import { startWithClient } from './scripted-client.js';

let server: ScriptedModelServer;
let client: OpenAI;

async function start(script: ScriptEntry[] = [], fallback?: ScriptEntry): Promise<void> {
  ({ server, client } = await startWithClient(script, fallback));
}

afterEach(async () => {
  await server?.close();
});

describe('scripted model server: Responses API', () => {
  it('answers a non-streamed request with a message and usage', async () => {
    // Prepare
    await start([{ text: 'Hello there, how can I help?', usage: { inputTokens: 11 } }]);

    // Act
    const response = await client.responses.create({ model: 'gpt-test', input: 'hi' });

    // Assess
    expect(response.output_text).toBe('Hello there, how can I help?');
    expect(response.id).toMatch(/^resp_/);
    expect(response.status).toBe('completed');
    expect(response.model).toBe('gpt-test');
    const [message] = response.output;
    expect(message).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(message?.id).toMatch(/^msg_/);
    expect(response.usage).toMatchObject({
      input_tokens: 11,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
    expect(response.usage?.total_tokens).toBe(11 + (response.usage?.output_tokens ?? 0));
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      path: '/v1/responses',
      api: 'responses',
      stream: false,
      body: { model: 'gpt-test', input: 'hi' },
    });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test');
  });

  it('streams the full event sequence with text in several deltas', async () => {
    // Prepare
    const text = 'Streaming text arrives in small pieces.';
    await start([{ text }]);

    // Act
    const stream = await client.responses.create({ model: 'gpt-test', input: 'hi', stream: true });
    const events = [];
    for await (const event of stream) events.push(event);

    // Assess
    const types = events.map((event) => event.type);
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.flatMap((e) =>
      e.type === 'response.output_text.delta' ? [e.delta] : [],
    );
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join('')).toBe(text);
    const completed = events.at(-1);
    expect(completed?.type === 'response.completed' && completed.response.usage).toBeTruthy();
    expect(server.requests[0]?.stream).toBe(true);
  });

  it('satisfies the client stream accumulator (responses.stream)', async () => {
    // Prepare
    await start([
      { reasoning: 'Think first.', text: 'Answer.', toolCalls: [{ name: 'f', arguments: {} }] },
    ]);

    // Act
    const final = await client.responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse();

    // Assess
    expect(final.output.map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
    ]);
    expect(final.output_text).toBe('Answer.');
  });

  it('returns function calls with the scripted call ids and JSON arguments', async () => {
    // Prepare
    const turn: ScriptEntry = {
      text: 'Let me check.',
      toolCalls: [
        { id: 'call_given', name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'raw_args', arguments: '{"a":1}' },
      ],
    };
    await start([turn, turn]);

    // Act
    const plain = await client.responses.create({ model: 'gpt-test', input: 'weather?' });
    const streamed = await client.responses
      .stream({ model: 'gpt-test', input: 'weather?' })
      .finalResponse();

    // Assess
    for (const response of [plain, streamed]) {
      const [message, weather, raw] = response.output;
      expect(message?.type).toBe('message');
      expect(response.output_text).toBe('Let me check.');
      expect(weather).toMatchObject({
        type: 'function_call',
        call_id: 'call_given',
        name: 'get_weather',
        status: 'completed',
      });
      expect(weather?.type === 'function_call' && JSON.parse(weather.arguments)).toEqual({
        city: 'Paris',
      });
      expect(weather?.id).toMatch(/^fc_/);
      expect(raw).toMatchObject({ type: 'function_call', name: 'raw_args', arguments: '{"a":1}' });
      expect(raw?.type === 'function_call' && raw.call_id).toMatch(/^call_/);
    }
  });

  it('streams function call arguments in several deltas', async () => {
    // Prepare
    await start([{ toolCalls: [{ name: 'search', arguments: { query: 'scripted servers' } }] }]);

    // Act
    const stream = await client.responses.create({ model: 'gpt-test', input: 'q', stream: true });
    const events = [];
    for await (const event of stream) events.push(event);

    // Assess
    const added = events.find((e) => e.type === 'response.output_item.added');
    expect(added?.type === 'response.output_item.added' && added.item).toMatchObject({
      type: 'function_call',
      name: 'search',
      arguments: '',
    });
    const deltas = events.flatMap((e) =>
      e.type === 'response.function_call_arguments.delta' ? [e.delta] : [],
    );
    expect(deltas.length).toBeGreaterThan(2);
    const done = events.find((e) => e.type === 'response.function_call_arguments.done');
    expect(done?.type === 'response.function_call_arguments.done' && done.arguments).toBe(
      deltas.join(''),
    );
    expect(events.some((e) => e.type === 'response.output_text.delta')).toBe(false);
  });

  it('streams a reasoning summary', async () => {
    // Prepare
    await start([{ reasoning: 'The user greets me, so I greet back.', text: 'Hi!' }]);

    // Act
    const stream = await client.responses.create({ model: 'gpt-test', input: 'hi', stream: true });
    const events = [];
    for await (const event of stream) events.push(event);

    // Assess
    const types = events.map((event) => event.type);
    expect(types).toContain('response.reasoning_summary_part.added');
    expect(types).toContain('response.reasoning_summary_text.done');
    expect(types).toContain('response.reasoning_summary_part.done');
    const deltas = events.flatMap((e) =>
      e.type === 'response.reasoning_summary_text.delta' ? [e.delta] : [],
    );
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('The user greets me, so I greet back.');
    const completed = events.at(-1);
    if (completed?.type !== 'response.completed') throw new Error('no response.completed');
    const [reasoning, message] = completed.response.output;
    expect(reasoning).toMatchObject({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'The user greets me, so I greet back.' }],
    });
    expect(reasoning?.id).toMatch(/^rs_/);
    expect(message?.type).toBe('message');
    expect(completed.response.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });
});

describe('scripted model server: Chat Completions API', () => {
  it('answers a non-streamed request with text and with tool calls', async () => {
    // Prepare
    await start([
      { text: 'Plain answer.' },
      { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { id: 7 } }] },
    ]);
    const messages = [{ role: 'user' as const, content: 'hi' }];

    // Act
    const text = await client.chat.completions.create({ model: 'gpt-test', messages });
    const calls = await client.chat.completions.create({ model: 'gpt-test', messages });

    // Assess
    expect(text.object).toBe('chat.completion');
    expect(text.id).toMatch(/^chatcmpl-/);
    expect(text.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Plain answer.' },
    });
    expect(text.usage?.total_tokens).toBeGreaterThan(0);
    expect(calls.choices[0]?.finish_reason).toBe('tool_calls');
    expect(calls.choices[0]?.message.content).toBeNull();
    expect(calls.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"id":7}' } },
    ]);
    expect(server.requests.map((r) => [r.api, r.path])).toEqual([
      ['chat', '/v1/chat/completions'],
      ['chat', '/v1/chat/completions'],
    ]);
    expect(server.requests[0]?.body.messages).toEqual(messages);
  });

  it('streams chunks with tool call deltas, a finish reason, a usage chunk and [DONE]', async () => {
    // Prepare
    const turn: ScriptEntry = {
      text: 'Calling two tools now.',
      toolCalls: [
        { id: 'call_a', name: 'first', arguments: { x: 1 } },
        { name: 'second', arguments: { y: 'two' } },
      ],
      usage: { inputTokens: 5, outputTokens: 9 },
    };
    await start([turn, turn]);
    const request = {
      model: 'gpt-test',
      messages: [{ role: 'user' as const, content: 'go' }],
      stream: true as const,
      stream_options: { include_usage: true },
    };

    // Act
    const stream = await client.chat.completions.create(request);
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const final = await client.chat.completions.stream(request).finalChatCompletion();

    // Assess
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    const contents = chunks.flatMap((c) =>
      c.choices[0]?.delta.content ? [c.choices[0].delta.content] : [],
    );
    expect(contents.length).toBeGreaterThan(2);
    expect(contents.join('')).toBe('Calling two tools now.');
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas[0]).toMatchObject({ index: 0, id: 'call_a', function: { name: 'first' } });
    expect(toolDeltas.filter((d) => d.index === 1).length).toBeGreaterThan(1);
    const finish = chunks.findLast((c) => c.choices.length > 0);
    expect(finish?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 },
    });
    expect(final.choices[0]?.message.content).toBe('Calling two tools now.');
    expect(final.choices[0]?.message.tool_calls).toMatchObject([
      { id: 'call_a', function: { name: 'first', arguments: '{"x":1}' } },
      { function: { name: 'second', arguments: '{"y":"two"}' } },
    ]);
  });
});
