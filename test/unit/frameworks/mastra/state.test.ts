import { describe, expect, it } from 'vitest';
import { ModelError } from '../../../../lib/core/errors.js';
import { mapMastraError } from '../../../../lib/frameworks/mastra/errors.js';
import { withEditedArguments } from '../../../../lib/frameworks/mastra/snapshots.js';
import {
  loadHistory,
  loadPaused,
  toHistory,
  toPaused,
  toUserMessage,
} from '../../../../lib/frameworks/mastra/state.js';

describe('mastra session slot and paused state', () => {
  it('round-trips the thread’s messages and refuses a slot of another shape', () => {
    // Prepare
    const messages = [{ id: 'm1', role: 'user', createdAt: new Date(0), content: { format: 2 } }];

    // Act
    const slot = toHistory(messages);

    // Assess
    expect(loadHistory('s', slot)).toEqual([
      { id: 'm1', role: 'user', createdAt: '1970-01-01T00:00:00.000Z', content: { format: 2 } },
    ]);
    expect(loadHistory('s', undefined)).toEqual([]);
    expect(() => loadHistory('s', { schemaVersion: 2, messages: [] })).toThrow(
      expect.objectContaining({ code: 'session-corrupt' }),
    );
  });

  it('refuses a paused run without snapshots', () => {
    // Prepare
    const run = { mastraRunId: 'r1', history: [], snapshots: [], approvals: [] };

    // Act
    const paused = toPaused(run);

    // Assess
    expect(() => loadPaused('s', paused)).toThrow(
      expect.objectContaining({ code: 'session-corrupt' }),
    );
  });

  it('turns text alone into a plain user message and mixed requests into parts', () => {
    // Act
    const plain = toUserMessage([{ type: 'text', text: 'hi' }]);
    const mixed = toUserMessage([
      { type: 'text', text: 'see' },
      { type: 'image', data: 'aGk=', mimeType: 'image/png' },
      { type: 'file', url: 'https://example.com/a.pdf', name: 'a.pdf' },
    ]);

    // Assess
    expect(plain).toEqual({ role: 'user', content: 'hi' });
    expect(mixed).toMatchObject({
      role: 'user',
      content: [
        { type: 'text', text: 'see' },
        { type: 'image', image: 'aGk=', mediaType: 'image/png' },
        { type: 'file', filename: 'a.pdf' },
      ],
    });
  });
});

describe('edited arguments in a suspended run’s snapshots', () => {
  it('replaces the call’s arguments wherever the snapshot holds them, and nothing else', () => {
    // Prepare
    const args = { to: 'bob', amount: 500 };
    const snapshot = {
      context: {
        toolCallStep: {
          payload: [{ toolCallId: 'c1', toolName: 'pay', args }],
          suspendPayload: {
            requireToolApproval: { toolCallId: 'c1', args },
            messages: [
              { toolInvocation: { toolCallId: 'c1', args } },
              { toolInvocation: { toolCallId: 'c2', args } },
            ],
            pendingToolApprovals: { c1: { toolName: 'pay', args } },
          },
        },
        steps: [{ type: 'tool-call', toolCallId: 'c1', input: args }],
      },
    };
    const edited = { to: 'bob', amount: 50 };

    // Act
    const [out] = withEditedArguments(
      [{ workflowName: 'agentic-loop', snapshot }],
      new Map([['c1', edited]]),
    );

    // Assess
    const text = JSON.stringify(out?.snapshot);
    expect(text.match(/"amount":50}/g)).toHaveLength(5);
    expect(text.match(/"amount":500}/g)).toHaveLength(1);
    expect(snapshot.context.toolCallStep.payload[0]?.args).toBe(args);
  });
});

describe('mapMastraError', () => {
  it('finds the provider’s HTTP error inside Mastra’s wrapping', () => {
    // Prepare
    const api = Object.assign(new Error('boom'), { name: 'AI_APICallError', statusCode: 429 });
    const wrapped = new Error('Mastra failed', { cause: api });

    // Act
    const mapped = mapMastraError(wrapped);

    // Assess
    expect(mapped).toBeInstanceOf(ModelError);
    expect(mapped).toMatchObject({ code: 'model-rate-limited', status: 429 });
    expect(mapMastraError(new Error('other'))).toMatchObject({ message: 'other' });
  });
});
