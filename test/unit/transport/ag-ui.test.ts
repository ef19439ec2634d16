import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../lib/core/index.js';
import { type AgUiEvent, toAgUiEvent, toAgUiMessage } from '../../../lib/transport/index.js';

const runId = 'r1';
const sessionId = 's1';
const reply = {
  status: 'completed',
  runId,
  sessionId,
  agent: 'a',
  text: 'hi',
  usage: { inputTokens: 3, outputTokens: 4 },
} as const;

const CASES: [StreamEvent, AgUiEvent][] = [
  [
    { type: 'run-started', runId, sessionId, agent: 'a' },
    { type: 'RUN_STARTED', threadId: sessionId, runId, metadata: { agent: 'a' } },
  ],
  [
    { type: 'message-start', runId, messageId: 'm' },
    { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
  ],
  [
    { type: 'text-delta', runId, messageId: 'm', delta: 'He' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'He' },
  ],
  [
    { type: 'message-end', runId, messageId: 'm' },
    { type: 'TEXT_MESSAGE_END', messageId: 'm' },
  ],
  [
    { type: 'reasoning-start', runId, reasoningId: 'rs' },
    { type: 'REASONING_MESSAGE_START', messageId: 'rs', role: 'reasoning' },
  ],
  [
    { type: 'reasoning-delta', runId, reasoningId: 'rs', delta: 'hmm' },
    { type: 'REASONING_MESSAGE_CONTENT', messageId: 'rs', delta: 'hmm' },
  ],
  [
    { type: 'reasoning-end', runId, reasoningId: 'rs' },
    { type: 'REASONING_MESSAGE_END', messageId: 'rs' },
  ],
  [
    { type: 'tool-call-start', runId, toolCallId: 't', toolName: 'search' },
    { type: 'TOOL_CALL_START', toolCallId: 't', toolCallName: 'search' },
  ],
  [
    { type: 'tool-call-args', runId, toolCallId: 't', delta: '{"q":' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 't', delta: '{"q":' },
  ],
  [
    { type: 'tool-call-end', runId, toolCallId: 't' },
    { type: 'TOOL_CALL_END', toolCallId: 't' },
  ],
  [
    {
      type: 'tool-call-result',
      runId,
      toolCallId: 't',
      toolName: 'search',
      result: { hits: 2 },
      isError: false,
    },
    {
      type: 'TOOL_CALL_RESULT',
      messageId: 't:result',
      toolCallId: 't',
      content: '{"hits":2}',
      role: 'tool',
      metadata: { toolName: 'search', isError: false },
    },
  ],
  [
    { type: 'step-start', runId, stepId: 'st' },
    { type: 'STEP_STARTED', stepName: 'st' },
  ],
  [
    { type: 'step-end', runId, stepId: 'st', usage: { inputTokens: 1, outputTokens: 2 } },
    {
      type: 'STEP_FINISHED',
      stepName: 'st',
      metadata: { usage: { inputTokens: 1, outputTokens: 2 } },
    },
  ],
  [
    {
      type: 'run-paused',
      runId,
      sessionId,
      interruptions: [
        { id: 'call-1', kind: 'tool-approval', toolName: 'refund', arguments: { amount: 5 } },
        { id: 'ask-1', kind: 'input', message: 'Which account?' },
      ],
    },
    {
      type: 'RUN_FINISHED',
      threadId: sessionId,
      runId,
      outcome: {
        type: 'interrupt',
        interrupts: [
          {
            id: 'call-1',
            reason: 'tool_call',
            toolCallId: 'call-1',
            metadata: { toolName: 'refund', arguments: { amount: 5 } },
          },
          { id: 'ask-1', reason: 'input_required', message: 'Which account?' },
        ],
      },
    },
  ],
  [
    { type: 'run-finished', runId, reply },
    {
      type: 'RUN_FINISHED',
      threadId: sessionId,
      runId,
      result: reply,
      outcome: { type: 'success' },
      usage: [{ inputTokens: 3, outputTokens: 4 }],
    },
  ],
  [
    { type: 'run-error', runId, code: 'model-error', message: 'down' },
    { type: 'RUN_ERROR', message: 'down', code: 'model-error' },
  ],
  [
    { type: 'run-retrying', runId, code: 'run-timeout', message: 'later', retryInSeconds: 2 },
    {
      type: 'CUSTOM',
      name: 'run-retrying',
      value: { runId, code: 'run-timeout', message: 'later', retryInSeconds: 2 },
    },
  ],
];

describe('toAgUiEvent', () => {
  it('covers every stream event type', () => {
    // Prepare
    const types = new Set(CASES.map(([event]) => event.type));

    // Assess
    expect(types.size).toBe(17);
  });

  it.each(CASES.map(([event, expected]) => [event.type, event, expected] as const))(
    'maps %s',
    (_type, event, expected) => {
      // Act
      const encoded = toAgUiEvent(event);

      // Assess
      expect(encoded).toEqual(expected);
    },
  );

  it('passes a string tool result through as its content', () => {
    // Act
    const encoded = toAgUiEvent({
      type: 'tool-call-result',
      runId,
      toolCallId: 't',
      toolName: 'echo',
      result: 'plain text',
    });

    // Assess
    expect(encoded).toMatchObject({ content: 'plain text', metadata: { toolName: 'echo' } });
  });

  it('encodes a whole events message, keeping its envelope and seq', () => {
    // Prepare
    const events: StreamEvent[] = CASES.slice(0, 3).map(([event]) => event);

    // Act
    const message = toAgUiMessage({ type: 'events', sessionId, runId, seq: 4, events });

    // Assess
    expect(message).toEqual({
      type: 'events',
      format: 'ag-ui',
      sessionId,
      runId,
      seq: 4,
      events: CASES.slice(0, 3).map(([, expected]) => expected),
    });
  });
});
