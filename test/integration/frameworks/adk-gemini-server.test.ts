import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { useScriptedModelServer } from '../../helpers/model-server.js';

/** The scripted model server's Gemini API, through Google's own client (`@google/genai`). */
const server = useScriptedModelServer({ chunkSize: 4 });
const client = () =>
  new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: server.url.replace(/\/v1$/, '') } });

describe('scripted model server: Gemini generateContent', () => {
  it('answers generateContent with thoughts, text, usage and STOP', async () => {
    // Prepare
    server.push({ reasoning: 'Hmm.', text: 'Hello.', usage: { inputTokens: 5, outputTokens: 4 } });

    // Act
    const response = await client().models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Hi',
    });

    // Assess
    expect(response.candidates?.[0]).toMatchObject({
      content: { role: 'model', parts: [{ text: 'Hmm.', thought: true }, { text: 'Hello.' }] },
      finishReason: 'STOP',
    });
    expect(response.text).toBe('Hello.');
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 5, totalTokenCount: 9 });
    expect(server.requests[0]).toMatchObject({
      api: 'gemini',
      stream: false,
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
      body: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
    });
  });

  it('streams text in deltas and a function call whole, usage on the last chunk', async () => {
    // Prepare
    server.push({
      text: 'Checking now.',
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } }],
    });

    // Act
    const chunks = [];
    const stream = await client().models.generateContentStream({ model: 'm', contents: 'Oslo?' });
    for await (const chunk of stream) chunks.push(chunk);

    // Assess
    const texts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []).map((p) => p.text);
    expect(texts.filter(Boolean).join('')).toBe('Checking now.');
    expect(chunks.length).toBeGreaterThan(2);
    const last = chunks.at(-1);
    expect(last?.functionCalls).toEqual([
      { id: 'call_1', name: 'get_weather', args: { city: 'Oslo' } },
    ]);
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last?.usageMetadata?.totalTokenCount).toBeGreaterThan(0);
    expect(server.requests[0]?.stream).toBe(true);
  });

  it('answers a scripted error in Google’s envelope', async () => {
    // Prepare
    server.push({ error: { status: 429, message: 'Quota exceeded' } });

    // Act
    const failed = client()
      .models.generateContent({ model: 'm', contents: 'x' })
      .catch((err: unknown) => err);

    // Assess
    const err = (await failed) as { status?: number; message?: string };
    expect(err.status).toBe(429);
    expect(JSON.parse(err.message ?? '')).toEqual({
      error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' },
    });
  });

  it('refuses a mid-stream failure it cannot script for Gemini, saying so', async () => {
    // Prepare
    server.push({ text: 'partial', failAfterOutput: {} });

    // Act
    const failed = client()
      .models.generateContent({ model: 'm', contents: 'x' })
      .catch((err: unknown) => err);

    // Assess
    const err = (await failed) as { status?: number; message?: string };
    expect(err.status).toBe(500);
    expect(err.message).toContain('failAfterOutput is scripted for the Responses and Chat');
  });
});
