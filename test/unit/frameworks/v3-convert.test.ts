import { describe, expect, it } from 'vitest';
import { asJson } from '../../../lib/core/model-step.js';
import { generateOfStream, streamOfGenerate } from '../../../lib/frameworks/base/v3-convert.js';

const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 2, text: 2, reasoning: 0 },
};
const finishReason = { unified: 'tool-calls', raw: 'tool_calls' };
const generated = {
  content: [
    { type: 'reasoning', text: 'Bob first.' },
    { type: 'text', text: 'Paying Bob.', providerMetadata: { openai: { itemId: 'msg_1' } } },
    { type: 'tool-call', toolCallId: 'call_1', toolName: 'pay', input: '{"to":"bob"}' },
    { type: 'tool-call', toolCallId: 'call_2', toolName: 'pay', input: '{"to":"eve"}' },
  ],
  finishReason,
  usage,
  providerMetadata: { openai: { responseId: 'resp_1' } },
  response: { id: 'resp_1', modelId: 'm', timestamp: new Date(0) },
  warnings: [],
};

describe('v3 journal conversions', () => {
  it('keeps text, reasoning, tool calls, finish reason, usage and metadata over generate → stream → generate', () => {
    // Act
    const parts = streamOfGenerate(generated);
    const back = generateOfStream(asJson(parts));

    // Assess
    expect(parts.map((p) => p.type)).toEqual([
      'stream-start',
      'response-metadata',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'text-start',
      'text-delta',
      'text-end',
      'tool-call',
      'tool-call',
      'finish',
    ]);
    expect(back).toEqual(asJson(generated));
  });

  it('builds a generate result from a recorded (compacted) stream: texts by id, in order', () => {
    // Prepare
    const recorded = [
      { type: 'stream-start', warnings: [] },
      { type: 'response-metadata', id: 'r', modelId: 'm', timestamp: '1970-01-01T00:00:00.000Z' },
      { type: 'text-start', id: 'a' },
      { type: 'text-delta', id: 'a', delta: 'Paying ' },
      { type: 'text-delta', id: 'a', delta: 'Bob.' },
      { type: 'text-end', id: 'a' },
      { type: 'tool-input-start', id: 'call_1', toolName: 'pay' },
      { type: 'tool-input-delta', id: 'call_1', delta: '{"to":"bob"}' },
      { type: 'tool-input-end', id: 'call_1' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'pay', input: '{"to":"bob"}' },
      { type: 'finish', finishReason, usage },
    ];

    // Act
    const result = generateOfStream(recorded);

    // Assess
    expect(result).toEqual({
      content: [
        { type: 'text', text: 'Paying Bob.' },
        { type: 'tool-call', toolCallId: 'call_1', toolName: 'pay', input: '{"to":"bob"}' },
      ],
      finishReason,
      usage,
      response: { id: 'r', modelId: 'm', timestamp: '1970-01-01T00:00:00.000Z' },
      warnings: [],
    });
  });
});
