import { describe, expect, it } from 'vitest';
import { AiSdkEventMapper } from '../../../lib/frameworks/ai-sdk/events.js';
import {
  loadHistory,
  resumeMessages,
  toHistory,
  toPaused,
} from '../../../lib/frameworks/ai-sdk/state.js';

const call = { type: 'tool-call', toolCallId: 'c1', toolName: 'pay', input: { amount: 10 } };

describe('AI SDK state', () => {
  it('answers each approval request and writes edited arguments into the tool call', () => {
    // Prepare
    const paused = toPaused(
      [
        { role: 'user', content: 'pay' },
        {
          role: 'assistant',
          content: [
            call as any,
            { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
          ],
        },
      ],
      [{ approvalId: 'a1', toolCallId: 'c1', toolName: 'pay', input: { amount: 10 } }],
    );

    // Act
    const { messages } = resumeMessages('s', paused, [
      { id: 'c1', status: 'approved', arguments: { amount: 5 } },
    ]);

    // Assess
    expect((messages[1]?.content as any[] | undefined)?.[0]).toMatchObject({
      input: { amount: 5 },
    });
    expect(messages.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }],
    });
  });

  it('refuses a slot that is not its own shape as session-corrupt', () => {
    // Act
    const load = () => loadHistory('s', { schemaVersion: 2, messages: [] });

    // Assess
    expect(load).toThrow(expect.objectContaining({ code: 'session-corrupt' }));
  });
});

describe('toHistory', () => {
  it('checks only the turn’s new messages: a URL becomes its string, the loaded ones stay', () => {
    // Prepare
    const loaded = [{ role: 'user' as const, content: 'earlier' }];
    const image = new URL('https://example.com/cat.png');
    const fresh = { role: 'user' as const, content: [{ type: 'image' as const, image }] };

    // Act
    const plain = toHistory([...loaded, { role: 'assistant', content: 'ok' }], 1) as any;
    const converted = toHistory([...loaded, fresh], 1) as any;

    // Assess
    expect(plain.messages).toEqual([...loaded, { role: 'assistant', content: 'ok' }]);
    expect(converted.messages[0]).toBe(loaded[0]);
    expect(converted.messages[1]).toEqual({
      role: 'user',
      content: [{ type: 'image', image: 'https://example.com/cat.png' }],
    });
  });
});

describe('AiSdkEventMapper', () => {
  it('gives a tool call whose input was not streamed its start, args and end', () => {
    // Prepare
    const mapper = new AiSdkEventMapper('r1');

    // Act
    const events = [...mapper.map(call as any)];

    // Assess
    expect(events).toEqual([
      { type: 'tool-call-start', runId: 'r1', toolCallId: 'c1', toolName: 'pay' },
      { type: 'tool-call-args', runId: 'r1', toolCallId: 'c1', delta: '{"amount":10}' },
      { type: 'tool-call-end', runId: 'r1', toolCallId: 'c1' },
    ]);
  });

  it('keeps message ids unique when a provider reuses a text id in the next step', () => {
    // Prepare
    const mapper = new AiSdkEventMapper('r1');
    const step = (text: string) => [
      ...mapper.map({ type: 'text-delta', id: '0', text } as any),
      ...mapper.map({ type: 'text-end', id: '0' } as any),
    ];

    // Act
    const ids = [...step('a'), ...step('b')]
      .filter((e) => e.type === 'message-start')
      .map((e) => (e.type === 'message-start' ? e.messageId : ''));

    // Assess
    expect(new Set(ids).size).toBe(2);
  });
});
