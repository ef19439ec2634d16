import { describe, expect, it } from 'vitest';
import { isTerminalEvent, type StreamEvent, StreamEventSchema } from '../../../lib/core/index.js';

const runId = 'r1';
const reply = { status: 'completed', runId, sessionId: 's1', agent: 'a', text: 'hi' } as const;

const ONE_OF_EACH: StreamEvent[] = [
  { type: 'run-started', runId, sessionId: 's1', agent: 'a' },
  { type: 'message-start', runId, messageId: 'm' },
  { type: 'text-delta', runId, messageId: 'm', delta: 'x' },
  { type: 'message-end', runId, messageId: 'm' },
  { type: 'reasoning-start', runId, reasoningId: 'r' },
  { type: 'reasoning-delta', runId, reasoningId: 'r', delta: 'x' },
  { type: 'reasoning-end', runId, reasoningId: 'r' },
  { type: 'tool-call-start', runId, toolCallId: 't', toolName: 'n' },
  { type: 'tool-call-args', runId, toolCallId: 't', delta: '{' },
  { type: 'tool-call-end', runId, toolCallId: 't' },
  { type: 'tool-call-result', runId, toolCallId: 't', toolName: 'n', result: { ok: 1 } },
  { type: 'step-start', runId, stepId: 's' },
  { type: 'step-end', runId, stepId: 's', usage: { inputTokens: 1, outputTokens: 2 } },
  {
    type: 'run-paused',
    runId,
    sessionId: 's1',
    interruptions: [{ id: 'i', kind: 'tool-approval', toolName: 'n' }],
  },
  { type: 'run-finished', runId, reply },
  { type: 'run-error', runId, code: 'x', message: 'y' },
];

describe('StreamEventSchema', () => {
  it.each(ONE_OF_EACH.map((e) => [e.type, e] as const))('accepts %s', (_type, event) => {
    // Prepare
    const json = JSON.parse(JSON.stringify(event));

    // Act
    const parsed = StreamEventSchema.safeParse(json);

    // Assess
    expect(parsed.success).toBe(true);
  });

  it.each([
    ['an unknown type', { type: 'run-exploded', runId }],
    ['a missing runId', { type: 'message-start', messageId: 'm' }],
    ['an extra key', { type: 'message-end', runId, messageId: 'm', extra: 1 }],
    [
      'a paused run without interruptions',
      { type: 'run-paused', runId, sessionId: 's', interruptions: [] },
    ],
    [
      'a finished run with a bad reply',
      { type: 'run-finished', runId, reply: { ...reply, text: 1 } },
    ],
  ])('refuses %s', (_what, event) => {
    // Prepare
    const input: unknown = event;

    // Act
    const parsed = StreamEventSchema.safeParse(input);

    // Assess
    expect(parsed.success).toBe(false);
  });
});

describe('isTerminalEvent', () => {
  it('is true only for run-paused, run-finished and run-error', () => {
    // Prepare
    const events = ONE_OF_EACH;

    // Act
    const terminal = events.filter(isTerminalEvent).map((e) => e.type);

    // Assess
    expect(terminal).toEqual(['run-paused', 'run-finished', 'run-error']);
  });
});
