import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ScriptEntry,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../../lib/testing/index.js';
import { caught, startWithClient } from './scripted-client.js';

let server: ScriptedModelServer;
let client: OpenAI;

async function start(script: ScriptEntry[] = [], fallback?: ScriptEntry): Promise<void> {
  ({ server, client } = await startWithClient(script, fallback));
}

afterEach(async () => {
  await server?.close();
});

describe('scripted model server: errors and script handling', () => {
  it('surfaces a scripted 500 as the client APIError', async () => {
    // Prepare
    await start([{ error: { status: 500, message: 'boom' } }]);

    // Act
    const error = await caught(client.responses.create({ model: 'gpt-test', input: 'hi' }));

    // Assess
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 500, type: 'server_error' });
    expect((error as Error).message).toContain('boom');
  });

  it('surfaces a scripted 429 with retry-after as RateLimitError', async () => {
    // Prepare
    await start([{ error: { status: 429, retryAfterSeconds: 3 } }]);

    // Act
    const error = await caught(
      client.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      }),
    );

    // Assess
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('3');
  });

  it('answers 500 once the script is exhausted, and uses the fallback when given', async () => {
    // Prepare
    await start([{ text: 'only one' }]);
    await client.responses.create({ model: 'gpt-test', input: 'first' });

    // Act
    const error = await caught(client.responses.create({ model: 'gpt-test', input: 'second' }));
    await server.close();
    await start([], { text: 'fallback answer' });
    const first = await client.responses.create({ model: 'gpt-test', input: 'a' });
    const second = await client.responses.create({ model: 'gpt-test', input: 'b' });

    // Assess
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 500, type: 'server_error', code: null });
    expect((error as Error).message).toContain('scripted model server: script exhausted');
    expect([first.output_text, second.output_text]).toEqual(['fallback answer', 'fallback answer']);
  });

  it('calls function entries with the recorded request', async () => {
    // Prepare
    await start([
      (request) => ({ text: `${request.api} said ${request.body.input}` }),
      async (request) => ({ text: `stream=${request.stream}` }),
    ]);

    // Act
    const first = await client.responses.create({ model: 'gpt-test', input: 'ping' });
    const second = await client.responses.stream({ model: 'gpt-test', input: 'x' }).finalResponse();

    // Assess
    expect(first.output_text).toBe('responses said ping');
    expect(second.output_text).toBe('stream=true');
    expect(server.remaining()).toBe(0);
  });

  it('answers 500 when a function entry throws or returns a bad turn', async () => {
    // Prepare
    await start([
      () => {
        throw new Error('responder broke');
      },
      () => ({ txt: 'typo' }) as never,
    ]);

    // Act
    const thrown = await caught(client.responses.create({ model: 'gpt-test', input: 'a' }));
    const invalid = await caught(client.responses.create({ model: 'gpt-test', input: 'b' }));

    // Assess
    expect((thrown as Error).message).toContain('responder broke');
    expect((invalid as Error).message).toContain('txt');
  });

  it('validates entries when pushed and keeps the script unchanged on a bad one', async () => {
    // Prepare
    await start();

    // Act
    const push = () => server.push({ text: 'fine' }, { toolCalls: [{ arguments: {} }] } as never);

    // Assess
    expect(push).toThrow(/bad script entry 1[\s\S]*name/);
    expect(() => server.push({ error: { status: 200 } })).toThrow(/status/);
    expect(() => server.push('text' as never)).toThrow(/must be an object or a function/);
    await expect(
      startScriptedModelServer({ script: [{ toolcalls: [] } as never] }),
    ).rejects.toThrow(/toolcalls/);
    expect(server.remaining()).toBe(0);
  });

  it('pushes, resets and counts remaining entries', async () => {
    // Prepare
    await start([{ text: 'a' }]);
    server.push({ text: 'b' }, { text: 'c' });
    await client.responses.create({ model: 'gpt-test', input: 'x' });

    // Act
    const before = server.remaining();
    server.reset([{ text: 'z' }]);

    // Assess
    expect(before).toBe(2);
    expect(server.remaining()).toBe(1);
    expect(server.requests).toHaveLength(0);
    const response = await client.responses.create({ model: 'gpt-test', input: 'y' });
    expect(response.output_text).toBe('z');
  });

  it('answers malformed JSON with 400, unknown paths with 404 and lists a model', async () => {
    // Prepare
    await start([{ text: 'unused' }]);

    // Act
    const malformed = await fetch(`${server.url}/responses`, { method: 'POST', body: '{nope' });
    const unknown = await fetch(`${server.url}/embeddings`, { method: 'POST', body: '{}' });
    const models = await client.models.list();

    // Assess
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: {
        message: 'Invalid URL (POST /v1/embeddings)',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
    expect(models.data.map((model) => model.id)).toEqual(['scripted-model']);
    expect(server.remaining()).toBe(1);
    expect(server.requests).toHaveLength(0);
  });

  it('closes promptly while a delayed answer is pending', async () => {
    // Prepare
    await start([{ text: 'late', delayMs: 30_000 }]);
    const pending = caught(client.responses.create({ model: 'gpt-test', input: 'x' }));
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));

    // Act
    const startedAt = Date.now();
    await server.close();

    // Assess
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
  });
});

describe('scripted model server: lifecycle', () => {
  let own: ScriptedModelServer;

  beforeEach(async () => {
    own = await startScriptedModelServer();
  });

  afterEach(async () => {
    await own.close();
  });

  it('listens on an ephemeral localhost port and exposes a /v1 base URL', () => {
    // Prepare and Act: beforeEach started a server with default options.

    // Assess
    expect(own.port).toBeGreaterThan(0);
    expect(own.url).toBe(`http://127.0.0.1:${own.port}/v1`);
  });
});
