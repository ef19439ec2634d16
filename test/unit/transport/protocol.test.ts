import { describe, expect, it } from 'vitest';
import {
  AcceptedMessageSchema,
  ApprovalMessageSchema,
  ApprovalRequestSchema,
  ErrorMessageSchema,
  EventsMessageSchema,
  EventsQueueMessageSchema,
  HttpDecisionsBodySchema,
  HttpRunBodySchema,
  InvokePayloadSchema,
  MAX_INPUT_BYTES,
  parseInbound,
  RunJobSchema,
  ServerMessageSchema,
} from '../../../lib/transport/index.js';

const decisions = [{ id: 'call-1', status: 'approved' }];
const events = [{ type: 'run-started', runId: 'r1', sessionId: 's1', agent: 'helper' }];

describe('parseInbound accepts every client message', () => {
  it.each([
    ['run with text', { action: 'run', requestId: 'q1', agent: 'helper', input: 'hi' }],
    [
      'run with requests and a session',
      {
        action: 'run',
        requestId: 'q1',
        agent: 'helper',
        sessionId: 's1',
        input: [
          { type: 'text', text: 'look' },
          { type: 'image', url: 'https://example.com/a.png' },
        ],
      },
    ],
    ['resume', { action: 'resume', requestId: 'q2', sessionId: 's1', runId: 'r1', decisions }],
    ['subscribe', { action: 'subscribe', sessionId: 's1' }],
    ['subscribe as ag-ui', { action: 'subscribe', sessionId: 's1', format: 'ag-ui' }],
    ['unsubscribe', { action: 'unsubscribe', sessionId: 's1', requestId: 'q3' }],
  ])('%s', (_name, message) => {
    // Prepare
    const raw = JSON.stringify(message);

    // Act
    const result = parseInbound(raw);

    // Assess
    expect(result).toEqual({ ok: true, message });
  });
});

describe('server, queue, HTTP and invoke schemas', () => {
  it.each([
    [
      'accepted',
      AcceptedMessageSchema,
      { type: 'accepted', requestId: 'q', sessionId: 's', runId: 'r' },
    ],
    [
      'events',
      EventsMessageSchema,
      { type: 'events', sessionId: 's1', runId: 'r1', seq: 0, events },
    ],
    ['error', ErrorMessageSchema, { type: 'error', code: 'bad-json', message: 'no' }],
    [
      'error with requestId',
      ServerMessageSchema,
      { type: 'error', requestId: 'q', code: 'x', message: 'y' },
    ],
    [
      'run job',
      RunJobSchema,
      {
        kind: 'run',
        requestId: 'q1',
        principal: 'user-1',
        agent: 'helper',
        sessionId: 's1',
        runId: 'r1',
        input: 'hi',
        connectionId: 'abc=',
        enqueuedAt: 1,
      },
    ],
    [
      'resume job',
      RunJobSchema,
      {
        kind: 'resume',
        requestId: 'q2',
        principal: 'alice',
        sessionId: 's1',
        runId: 'r1',
        decisions,
        enqueuedAt: 1,
      },
    ],
    [
      'events queue message of an older worker (no owner)',
      EventsQueueMessageSchema,
      { message: { type: 'events', sessionId: 's1', runId: 'r1', seq: 3, events }, sentAt: 2 },
    ],
    [
      'events queue message with its owner',
      EventsQueueMessageSchema,
      {
        message: { type: 'events', sessionId: 's1', runId: 'r1', seq: 3, events },
        owner: 'alice',
        sentAt: 2,
      },
    ],
    [
      'approval',
      ApprovalMessageSchema,
      { sessionId: 's1', runId: 'r1', decisions, principal: 'back-office' },
    ],
    [
      'approval request',
      ApprovalRequestSchema,
      {
        sessionId: 's1',
        runId: 'r1',
        agent: 'helper',
        interruptions: [{ id: 'call-1', kind: 'tool-approval', toolName: 'refund' }],
        expiresAt: 5,
      },
    ],
    ['POST /runs', HttpRunBodySchema, { agent: 'helper', input: 'hi', mode: 'async' }],
    ['POST decisions', HttpDecisionsBodySchema, { decisions }],
    ['invoke run', InvokePayloadSchema, { action: 'run', agent: 'helper', input: 'hi' }],
    [
      'invoke resume',
      InvokePayloadSchema,
      { action: 'resume', sessionId: 's1', runId: 'r1', decisions, principal: 'p' },
    ],
  ] as const)('%s is valid', (_name, schema, message) => {
    // Prepare
    const json = JSON.parse(JSON.stringify(message));

    // Act
    const parsed = schema.safeParse(json);

    // Assess
    expect(parsed.success).toBe(true);
  });

  it.each([
    [
      'events without events',
      EventsMessageSchema,
      { type: 'events', sessionId: 's', runId: 'r', seq: 0, events: [] },
    ],
    [
      'events with a negative seq',
      EventsMessageSchema,
      { type: 'events', sessionId: 's', runId: 'r', seq: -1, events },
    ],
    [
      'run job without input',
      RunJobSchema,
      { kind: 'run', requestId: 'q', agent: 'a', sessionId: 's', runId: 'r', enqueuedAt: 1 },
    ],
    [
      'resume job with input',
      RunJobSchema,
      {
        kind: 'resume',
        requestId: 'q',
        sessionId: 's',
        runId: 'r',
        decisions,
        input: 'x',
        enqueuedAt: 1,
      },
    ],
    [
      'approval without principal',
      ApprovalMessageSchema,
      { sessionId: 's', runId: 'r', decisions },
    ],
    ['POST /runs with a bad mode', HttpRunBodySchema, { agent: 'a', input: 'hi', mode: 'later' }],
  ] as const)('%s is refused', (_name, schema, message) => {
    // Act
    const parsed = schema.safeParse(message);

    // Assess
    expect(parsed.success).toBe(false);
  });
});

describe('parseInbound refuses bad messages', () => {
  it.each([
    [
      'an empty text request',
      { action: 'run', requestId: 'q1', agent: 'a', input: [{ type: 'text', text: '' }] },
      'input.0.text: must not be empty',
    ],
    [
      'an empty string input',
      { action: 'run', requestId: 'q1', agent: 'a', input: '' },
      'input: must not be empty',
    ],
    [
      'an input of the wrong type',
      { action: 'run', requestId: 'q1', agent: 'a', input: 42 },
      'input: must be a string or a list of requests',
    ],
    [
      'an unknown request type',
      { action: 'run', requestId: 'q1', agent: 'a', input: [{ type: 'video', url: 'x' }] },
      'input.0.type: must be one of "text", "image", "file"',
    ],
    [
      'an image request without its url',
      { action: 'run', requestId: 'q1', agent: 'a', input: [{ type: 'image' }] },
      'input.0.url: is required',
    ],
    [
      'a request that is not an object',
      { action: 'run', requestId: 'q1', agent: 'a', input: ['hi'] },
      'input.0: must be an object',
    ],
    ['a missing agent', { action: 'run', requestId: 'q1', input: 'hi' }, 'agent: is required'],
    [
      'an unknown field',
      { action: 'run', requestId: 'q1', agent: 'a', input: 'hi', priority: 1 },
      'unknown field "priority"',
    ],
    [
      'a bad session id',
      { action: 'subscribe', sessionId: 'has space' },
      'sessionId: must be 1-128 characters',
    ],
    [
      'a bad format',
      { action: 'subscribe', sessionId: 's1', format: 'xml' },
      'format: must be "native" or "ag-ui"',
    ],
    [
      'a bad decision status',
      {
        action: 'resume',
        requestId: 'q',
        sessionId: 's',
        runId: 'r',
        decisions: [{ id: 'c', status: 'maybe' }],
      },
      'decisions.0.status: must be "approved" or "denied"',
    ],
    [
      'no decisions',
      { action: 'resume', requestId: 'q', sessionId: 's', runId: 'r', decisions: [] },
      'decisions: at least one decision is needed',
    ],
    [
      'too many requests',
      {
        action: 'run',
        requestId: 'q',
        agent: 'a',
        input: Array.from({ length: 101 }, () => ({ type: 'text', text: 'x' })),
      },
      'input: at most 100 requests are allowed',
    ],
    [
      'a requestId that is too long',
      { action: 'run', requestId: 'q'.repeat(129), agent: 'a', input: 'hi' },
      'requestId: must be 1-128 characters',
    ],
  ])('%s', (_name, message, expected) => {
    // Prepare
    const raw = JSON.stringify(message);

    // Act
    const result = parseInbound(raw);

    // Assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('invalid-message');
    expect(result.error.message).toContain(expected);
  });

  it('answers an input over 96 KB (in a frame under 128 KB) with too-large', () => {
    // Prepare
    const message = {
      action: 'run',
      requestId: 'q',
      agent: 'a',
      input: 'x'.repeat(MAX_INPUT_BYTES),
    };

    // Act
    const result = parseInbound(JSON.stringify(message));

    // Assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ code: 'too-large', requestId: 'q' });
    expect(result.error.message).toContain(
      `input: must be at most ${MAX_INPUT_BYTES} bytes of JSON`,
    );
  });
});
