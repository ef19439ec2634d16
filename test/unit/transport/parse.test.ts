import { describe, expect, it } from 'vitest';
import {
  checkMessage,
  InvokePayloadSchema,
  parseInbound,
  parseMessage,
  RunJobSchema,
} from '../../../lib/transport/index.js';

describe('parseInbound: size, JSON, action, prototype keys, echo', () => {
  it('answers malformed JSON with bad-json', () => {
    // Act
    const result = parseInbound('{"action": "run",');

    // Assess
    expect(result).toEqual({
      ok: false,
      error: { type: 'error', code: 'bad-json', message: 'The message is not valid JSON.' },
    });
  });

  it.each([
    ['an array', '[1,2]'],
    ['a string', '"run"'],
    ['null', 'null'],
  ])('answers %s with invalid-message', (_name, raw) => {
    // Act
    const result = parseInbound(raw);

    // Assess
    expect(result.ok || result.error.code).toBe('invalid-message');
  });

  it('answers an oversized frame with too-large and still echoes its requestId', () => {
    // Prepare
    const raw = JSON.stringify({
      action: 'run',
      requestId: 'big-1',
      agent: 'a',
      input: 'x'.repeat(140_000),
    });

    // Act
    const result = parseInbound(raw);

    // Assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ code: 'too-large', requestId: 'big-1' });
    expect(result.error.message).toMatch(/the limit is 131072/);
  });

  it('counts bytes, not characters, against the limit', () => {
    // Prepare: 60 000 three-byte characters are 180 000 bytes
    const raw = JSON.stringify({
      action: 'run',
      requestId: 'q',
      agent: 'a',
      input: '€'.repeat(60_000),
    });

    // Act
    const result = parseInbound(raw);

    // Assess
    expect(result.ok || result.error.code).toBe('too-large');
  });

  it('honours a smaller limit', () => {
    // Act
    const result = parseInbound(JSON.stringify({ action: 'subscribe', sessionId: 's1' }), {
      maxBytes: 10,
    });

    // Assess
    expect(result.ok || result.error.code).toBe('too-large');
  });

  it.each([
    ['a missing action', { requestId: 'q9', sessionId: 's' }, 'The message has no "action"'],
    ['an unknown action', { action: 'explode', requestId: 'q9' }, 'Unknown action "explode"'],
  ])('answers %s with unknown-action', (_name, message, expected) => {
    // Act
    const result = parseInbound(JSON.stringify(message));

    // Assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ code: 'unknown-action', requestId: 'q9' });
    expect(result.error.message).toContain(expected);
    expect(result.error.message).toContain('run, resume, subscribe, unsubscribe');
  });

  it.each([
    [
      '__proto__ at the top',
      '{"action":"subscribe","sessionId":"s","__proto__":{"x":1}}',
      '__proto__',
    ],
    [
      'constructor inside decision arguments',
      '{"action":"resume","requestId":"q","sessionId":"s","runId":"r","decisions":[{"id":"c","status":"approved","arguments":{"constructor":{"prototype":{}}}}]}',
      'decisions.0.arguments.constructor',
    ],
    [
      'prototype in a nested object',
      '{"action":"subscribe","sessionId":"s","x":{"prototype":1}}',
      'x.prototype',
    ],
    [
      'an escaped __proto__',
      '{"action":"subscribe","sessionId":"s","\\u005f_proto__":1}',
      '__proto__',
    ],
  ])('refuses %s', (_name, raw, path) => {
    // Act
    const result = parseInbound(raw);

    // Assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('forbidden-key');
    expect(result.error.message).toContain(path);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('echoes the requestId of an invalid message', () => {
    // Act
    const result = parseInbound(JSON.stringify({ action: 'run', requestId: 'q-42', agent: 'a' }));

    // Assess
    expect(result).toEqual({
      ok: false,
      error: {
        type: 'error',
        requestId: 'q-42',
        code: 'invalid-message',
        message: 'input: is required',
      },
    });
  });

  it('does not echo a requestId that is itself invalid', () => {
    // Act
    const result = parseInbound(
      JSON.stringify({ action: 'run', requestId: '<script>', agent: 'a', input: 'x' }),
    );

    // Assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.requestId).toBeUndefined();
  });

  it('reports at most three issues and keeps the message short', () => {
    // Prepare
    const message = {
      action: 'run',
      requestId: 'q',
      agent: 'a',
      input: 'x',
      a: 1,
      b: 2,
      c: 3,
      d: 4,
      sessionId: 1,
      ['k'.repeat(5_000)]: 1,
    };

    // Act
    const result = parseInbound(JSON.stringify(message));

    // Assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message.length).toBeLessThan(1_100);
    expect(result.error.message).not.toContain('k'.repeat(100));
  });

  it('checks an already parsed invoke payload the same way', () => {
    // Prepare
    const payload = JSON.parse(
      '{"action":"run","agent":"a","input":"hi","__proto__":{"admin":true}}',
    );

    // Act
    const bad = checkMessage(InvokePayloadSchema, payload);
    const good = checkMessage(InvokePayloadSchema, { action: 'run', agent: 'a', input: 'hi' });

    // Assess
    expect(bad.ok || bad.error.code).toBe('forbidden-key');
    expect(good.ok).toBe(true);
  });

  it('names the values a discriminator may take', () => {
    // Act
    const result = parseMessage(RunJobSchema, JSON.stringify({ kind: 'rerun', requestId: 'q5' }));

    // Assess
    expect(result).toEqual({
      ok: false,
      error: {
        type: 'error',
        requestId: 'q5',
        code: 'invalid-message',
        message: 'kind: must be one of "run", "resume", "clear"',
      },
    });
  });

  it('refuses JSON nested too deeply instead of overflowing the stack', () => {
    // Prepare
    const nested = `${'['.repeat(50_000)}"constructor"${']'.repeat(50_000)}`;
    const raw = `{"action":"resume","requestId":"q6","sessionId":"s","runId":"r","decisions":[{"id":"c","status":"approved","arguments":${nested}}]}`;

    // Act
    const result = parseInbound(raw);

    // Assess
    expect(result).toEqual({
      ok: false,
      error: {
        type: 'error',
        requestId: 'q6',
        code: 'too-deep',
        message: 'The message is nested more than 64 levels deep.',
      },
    });
  });
});
