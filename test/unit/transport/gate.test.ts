import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import {
  AgUiRunInputSchema,
  ApprovalMessageSchema,
  CLIENT_ACTIONS,
  ClientMessageSchema,
  checkMessage,
  ERROR_CODES,
  HttpDecisionsBodySchema,
  HttpRunBodySchema,
  InvokePayloadSchema,
  MAX_INPUT_BYTES,
  parseInbound,
  parseMessage,
} from '../../../lib/transport/index.js';

// The one input gate (lib/transport/parse.ts) every front calls: its typed errors, and random
// inputs of every shape that never make it throw or answer an untyped error.
const TRANSPORT_CODES = Object.entries(ERROR_CODES)
  .filter(([, v]) => v.source === 'transport')
  .map(([code]) => code);

const SCHEMAS: [string, z.core.$ZodType, readonly string[] | undefined][] = [
  ['WebSocket', ClientMessageSchema, CLIENT_ACTIONS],
  ['POST /runs', HttpRunBodySchema, undefined],
  ['decisions', HttpDecisionsBodySchema, undefined],
  ['AG-UI', AgUiRunInputSchema, undefined],
  ['invoke', InvokePayloadSchema, undefined],
  ['approvals', ApprovalMessageSchema, undefined],
];

const utf8 = (text: string) => new TextEncoder().encode(text);
const withBytes = (before: string, bytes: number[], after: string) =>
  Uint8Array.from([...utf8(before), ...bytes, ...utf8(after)]);

describe('invalid UTF-8 is a typed error, never replacement characters', () => {
  it.each([
    ['a stray continuation byte', [0x80]],
    ['0xff', [0xff, 0xfe]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['a UTF-16 surrogate as CESU-8', [0xed, 0xa0, 0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('%s', (_name, bytes) => {
    // Prepare
    const raw = withBytes('{"action":"run","requestId":"u1","agent":"demo","input":"', bytes, '"}');

    // Act
    const result = parseInbound(raw);

    // Assess
    expect(result).toEqual({
      ok: false,
      error: { type: 'error', code: 'invalid-utf8', message: 'The message is not valid UTF-8.' },
    });
  });

  it('passes valid UTF-8 bytes, a BOM-less multi-byte text included', () => {
    // Act
    const result = parseInbound(utf8('{"action":"subscribe","sessionId":"s","format":"native"}'));
    const text = parseMessage(HttpRunBodySchema, utf8('{"agent":"demo","input":"olá €𝄞"}'));

    // Assess
    expect(result.ok).toBe(true);
    expect(text.ok && text.message.input).toBe('olá €𝄞');
  });
});

describe('an already parsed value (invoke) meets the same limits', () => {
  it('refuses an invoke payload over 128 KB as JSON with too-large', () => {
    // Prepare
    const payload = { action: 'run', agent: 'demo', input: 'x', pad: 'y'.repeat(140_000) };

    // Act
    const result = checkMessage(InvokePayloadSchema, payload);

    // Assess
    expect(result.ok || result.error.code).toBe('too-large');
  });

  it('measures the JSON size exactly enough: 128 KB of input passes the size, then the 96 KB rule', () => {
    // Prepare
    const payload = { action: 'run', agent: 'demo', input: 'x'.repeat(MAX_INPUT_BYTES + 1) };

    // Act
    const result = checkMessage(InvokePayloadSchema, payload);

    // Assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('too-large');
    expect(result.error.message).toContain('input: must be at most');
  });

  it('refuses 100,000-deep nesting without overflowing the stack', () => {
    // Prepare
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];

    // Act
    const result = checkMessage(InvokePayloadSchema, { action: 'run', agent: 'a', input: deep });

    // Assess
    expect(result.ok || result.error.code).toBe('too-large');
  });
});

describe('the AG-UI input, strict', () => {
  const base = {
    threadId: 't1',
    runId: 'client-run',
    messages: [{ id: 'm1', role: 'user', content: 'hello' }],
  };

  it.each([
    ['forwardedProps.agent: 5', { ...base, forwardedProps: { agent: 5 } }, 'invalid-message'],
    [
      'an unknown forwardedProps key',
      { ...base, forwardedProps: { agnet: 'x' } },
      'invalid-message',
    ],
    ['an unknown top-level field', { ...base, extra: 1 }, 'invalid-message'],
    ['a bad threadId', { ...base, threadId: 'a b' }, 'invalid-message'],
    ['no user message', { ...base, messages: [] }, 'invalid-message'],
    [
      'an empty user message',
      { ...base, messages: [{ id: 'm', role: 'user', content: '' }] },
      'invalid-message',
    ],
    [
      'an image in the message that runs',
      {
        ...base,
        messages: [
          {
            id: 'm',
            role: 'user',
            content: [{ type: 'image', source: { type: 'url', value: 'u' } }],
          },
        ],
      },
      'invalid-message',
    ],
    [
      'a user text over 96 KB',
      { ...base, messages: [{ id: 'm', role: 'user', content: 'x'.repeat(100_000) }] },
      'too-large',
    ],
    ['5 MB of state', { ...base, state: { blob: 'x'.repeat(5_000_000) } }, 'too-large'],
  ])('%s → %s', (_name, body, code) => {
    // Act
    const result = parseMessage(AgUiRunInputSchema, JSON.stringify(body));

    // Assess
    expect(result.ok || result.error.code).toBe(code);
  });

  it('accepts what @ag-ui/client sends: history of every role, tools, context, state', () => {
    // Prepare
    const body = {
      ...base,
      state: { step: 1 },
      tools: [{ name: 'now', description: 'the time', parameters: { type: 'object' } }],
      context: [{ description: 'tz', value: 'UTC' }],
      forwardedProps: { agent: 'demo' },
      messages: [
        { id: 's', role: 'system', content: 'be brief' },
        { id: 'u0', role: 'user', content: [{ type: 'text', text: 'first' }] },
        {
          id: 'a0',
          role: 'assistant',
          content: 'ok',
          toolCalls: [{ id: 'c', type: 'function', function: { name: 'now', arguments: '{}' } }],
        },
        { id: 't0', role: 'tool', content: '12:00', toolCallId: 'c' },
        { id: 'u1', role: 'user', content: 'second' },
      ],
    };

    // Act
    const result = parseMessage(AgUiRunInputSchema, JSON.stringify(body));

    // Assess
    expect(result.ok).toBe(true);
  });
});

/** JSON values of every shape, forbidden keys and deep nests among them. */
const jsonish = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'prototype', 'action')),
      tie('value'),
      { maxKeys: 5 },
    ),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.integer({ min: 60, max: 200 }).map((n) => {
      let v: unknown = 1;
      for (let i = 0; i < n; i++) v = { a: v };
      return v;
    }),
  ),
})).value;

const typedError = (result: { ok: boolean; error?: { type: string; code: string } }) =>
  result.ok || (result.error?.type === 'error' && TRANSPORT_CODES.includes(result.error.code));

describe('property: nothing sent to the gate throws or answers an untyped error', () => {
  it.each(SCHEMAS)(
    '%s: random JSON values, as text and already parsed',
    (_name, schema, actions) => {
      fc.assert(
        fc.property(jsonish, (value) => {
          // Act
          const text = JSON.stringify(value) ?? 'null';
          const fromText = parseMessage(schema, text, { ...(actions ? { actions } : {}) });
          const fromValue = checkMessage(schema, JSON.parse(text), {
            ...(actions ? { actions } : {}),
          });

          // Assess: typed, and the two ways agree
          expect(typedError(fromText)).toBe(true);
          expect(typedError(fromValue)).toBe(true);
          expect(fromValue.ok || fromValue.error.code).toBe(fromText.ok || fromText.error.code);
        }),
        { numRuns: 300 },
      );
    },
  );

  it.each(SCHEMAS)('%s: random bytes', (_name, schema, actions) => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        // Act
        const result = parseMessage(schema, bytes, { ...(actions ? { actions } : {}) });

        // Assess
        expect(typedError(result)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('a forbidden key anywhere is never let through, whatever the schema', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SCHEMAS),
        fc.constantFrom('__proto__', 'constructor', 'prototype'),
        fc.array(fc.constantFrom('a', 0), { maxLength: 6 }),
        (entry, key, path) => {
          // Prepare: the key at a random path of objects and arrays
          let inner: unknown = { [key]: 1 };
          for (const step of path.reverse()) inner = step === 0 ? [inner] : { a: inner };
          const text = `{"x":${JSON.stringify(inner)}}`;

          // Act
          const result = parseMessage(entry[1], text, entry[2] ? { actions: entry[2] } : {});

          // Assess
          expect(result.ok || result.error.code).toBe('forbidden-key');
        },
      ),
      { numRuns: 200 },
    );
  });
});
