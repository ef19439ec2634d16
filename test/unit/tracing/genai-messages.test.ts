import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messagesJson, toGenAiMessages } from '../../../lib/tracing/genai-messages.js';

describe('toGenAiMessages', () => {
  it('maps the runners’ summaries to role + parts with the conventions’ role names', () => {
    // Act
    const input = toGenAiMessages(
      [
        { role: 'human', text: 'Hi' },
        { role: 'ai', text: '', calls: [{ name: 'lookup', callId: 'c1' }] },
        { role: 'tool', text: 'Paris, FR', callId: 'c1' },
        { role: 'user', results: [{ callId: 'c2', output: { ok: true } }] },
        { type: 'function_call', name: 'lookup', callId: 'c3' },
        { type: 'function_call_result', callId: 'c3', output: 'done' },
      ],
      'input',
    );

    // Assess
    expect(input).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Hi' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'lookup' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'Paris, FR' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c2', response: { ok: true } }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c3', name: 'lookup' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c3', response: 'done' }] },
    ]);
  });

  it('gives output messages a finish reason: tool_call when they ask for tools, else stop', () => {
    // Act
    const out = toGenAiMessages(
      [
        { role: 'model', text: 'Let me look.', calls: [{ name: 'lookup', callId: 'c1' }] },
        { role: 'assistant', text: 'Done.' },
      ],
      'output',
    );

    // Assess
    expect(out?.map((m) => m.finish_reason)).toEqual(['tool_call', 'stop']);
  });

  it('is undefined for a value that is not a list of messages', () => {
    expect(toGenAiMessages({ some: 'object' }, 'input')).toBeUndefined();
    expect(toGenAiMessages([1, 2], 'input')).toBeUndefined();
  });
});

describe('messagesJson', () => {
  it('is always valid JSON of the conventions’ shape within the bound', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), text: fc.string() })),
        fc.integer({ min: 2, max: 400 }),
        (summaries, max) => {
          const json = messagesJson(toGenAiMessages(summaries, 'input') ?? [], max);
          expect(json.length).toBeLessThanOrEqual(max);
          const parsed = JSON.parse(json) as { role: string; parts: unknown[] }[];
          for (const message of parsed) expect(Array.isArray(message.parts)).toBe(true);
        },
      ),
    );
  });

  it('keeps the latest messages when the oldest do not fit', () => {
    // Arrange
    const long = 'x'.repeat(300);
    const messages = toGenAiMessages(
      [
        { role: 'user', text: long },
        { role: 'user', text: 'latest' },
      ],
      'input',
    );

    // Act
    const json = messagesJson(messages ?? [], 200);

    // Assess
    expect(JSON.parse(json)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'latest' }] },
    ]);
  });
});
