import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../../../lib/testing/index.js';

let server: ScriptedModelServer | undefined;

afterEach(async () => {
  await server?.close();
});

const sameCall = { toolCalls: [{ id: 'call_same', name: 'pay', arguments: { to: 'bob' } }] };

describe('scripted model server: freshCallIds', () => {
  it('gives every tool call a new random id in every response, ignoring scripted ids', async () => {
    // Prepare
    server = await startScriptedModelServer({ freshCallIds: true, script: [sameCall, sameCall] });
    const client = new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });

    // Act
    const first = await client.responses.create({ model: 'm', input: 'pay' });
    const second = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'pay' }],
    });

    // Assess
    const a = first.output[0]?.type === 'function_call' ? first.output[0].call_id : '';
    const b = second.choices[0]?.message.tool_calls?.[0]?.id;
    expect(a).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(b).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(a).not.toBe(b);
  });

  it('keeps scripted ids without the option', async () => {
    // Prepare
    server = await startScriptedModelServer({ script: [sameCall] });
    const client = new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });

    // Act
    const response = await client.responses.create({ model: 'm', input: 'pay' });

    // Assess
    expect(response.output[0]).toMatchObject({ type: 'function_call', call_id: 'call_same' });
  });
});
