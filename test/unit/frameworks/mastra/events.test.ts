import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../../lib/core/events.js';
import { MastraEventMapper } from '../../../../lib/frameworks/mastra/events.js';

function mapAll(chunks: object[]): { events: StreamEvent[]; mapper: MastraEventMapper } {
  const mapper = new MastraEventMapper('run-1');
  const events: StreamEvent[] = [];
  for (const chunk of chunks) events.push(...mapper.map(chunk as never));
  events.push(...mapper.finish());
  return { events, mapper };
}

describe('MastraEventMapper', () => {
  it('opens a message only when text arrives and closes it at the step’s end', () => {
    // Act
    const { events } = mapAll([
      { type: 'step-start', payload: {} },
      { type: 'text-start', payload: { id: 't1' } },
      { type: 'text-delta', payload: { id: 't1', text: '' } },
      { type: 'text-delta', payload: { id: 't1', text: 'Hi' } },
      { type: 'step-finish', payload: { output: { usage: { inputTokens: 3, outputTokens: 1 } } } },
    ]);

    // Assess
    expect(events.map((e) => e.type)).toEqual([
      'step-start',
      'message-start',
      'text-delta',
      'message-end',
      'step-end',
    ]);
    expect(events.at(-1)).toMatchObject({ usage: { inputTokens: 3, outputTokens: 1 } });
  });

  it('gives a reused text id a new message id in a later step', () => {
    // Act
    const { events } = mapAll([
      { type: 'step-start', payload: {} },
      { type: 'text-delta', payload: { id: 'same', text: 'a' } },
      { type: 'text-end', payload: { id: 'same' } },
      { type: 'step-start', payload: {} },
      { type: 'text-delta', payload: { id: 'same', text: 'b' } },
    ]);

    // Assess
    const ids = events.filter((e) => e.type === 'message-start').map((e) => e.messageId);
    expect(new Set(ids).size).toBe(2);
  });

  it('gives a call whose input was not streamed its start, args and end, once', () => {
    // Act
    const { events } = mapAll([
      { type: 'tool-call', payload: { toolCallId: 'c1', toolName: 'pay', args: { a: 1 } } },
      { type: 'tool-result', payload: { toolCallId: 'c1', toolName: 'pay', result: 'ok' } },
      { type: 'tool-error', payload: { toolCallId: 'c2', toolName: 'pay', error: new Error('x') } },
    ]);

    // Assess
    expect(events.map((e) => e.type)).toEqual([
      'tool-call-start',
      'tool-call-args',
      'tool-call-end',
      'tool-call-result',
      'tool-call-result',
    ]);
    expect(events[1]).toMatchObject({ delta: '{"a":1}' });
    expect(events[3]).not.toHaveProperty('isError');
    expect(events[4]).toMatchObject({ isError: true, toolCallId: 'c2' });
  });

  it('collects approvals and keeps the stream’s error for the result', () => {
    // Act
    const { events, mapper } = mapAll([
      { type: 'tool-call-approval', payload: { toolCallId: 'c1', toolName: 'pay', args: {} } },
      {
        type: 'error',
        payload: { error: { name: 'AI_APICallError', statusCode: 500, message: 'x' } },
      },
    ]);

    // Assess
    expect(events).toEqual([]);
    expect(mapper.approvals).toEqual([{ toolCallId: 'c1', toolName: 'pay', args: {} }]);
    expect(mapper.failure()).toMatchObject({ code: 'model-error', status: 500 });
  });
});
