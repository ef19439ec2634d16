import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEventsQueueMessage } from '../../../lib/transport/events-queue-check.js';
import { isPrincipal } from '../../../lib/transport/ids.js';
import { parseMessage } from '../../../lib/transport/parse.js';
import { EventsQueueMessageSchema } from '../../../lib/transport/protocol.js';

// The fan-out's hand-written check (no zod in its bundle) against the schema it stands for:
// same accept/reject, same parsed value (key order too: it is posted as JSON), same error.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const FANOUT_MAX = 256 * 1024;

function agree(raw: string | Uint8Array, maxBytes = FANOUT_MAX) {
  const zod = parseMessage(EventsQueueMessageSchema, raw, { maxBytes });
  const hand = parseEventsQueueMessage(raw, { maxBytes });
  expect(hand).toEqual(zod);
  if (zod.ok && hand.ok) expect(JSON.stringify(hand.message)).toBe(JSON.stringify(zod.message));
  return zod;
}

const id = fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/);
const text = fc.string({ maxLength: 12, unit: 'binary' });
const nat = fc.oneof(fc.nat(), fc.maxSafeNat());
const principal = fc
  .oneof(fc.string({ minLength: 1, maxLength: 12, unit: 'binary' }), fc.constant('p'.repeat(1024)))
  .filter(isPrincipal);
const anyJson = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
const usage = fc.record({ inputTokens: nat, outputTokens: nat });
const opt = <T extends Record<string, fc.Arbitrary<unknown>>>(
  model: T,
  required: (keyof T & string)[],
) => fc.record(model, { requiredKeys: required });

const events: fc.Arbitrary<Json>[] = [
  opt({ type: fc.constant('run-started'), runId: text, sessionId: text, agent: text }, [
    'type',
    'runId',
    'sessionId',
    'agent',
  ]),
  ...['message-start', 'message-end'].map((type) =>
    fc.record({ type: fc.constant(type), runId: text, messageId: text }),
  ),
  ...['reasoning-start', 'reasoning-end'].map((type) =>
    fc.record({ type: fc.constant(type), runId: text, reasoningId: text }),
  ),
  fc.record({ type: fc.constant('text-delta'), runId: text, messageId: text, delta: text }),
  fc.record({ type: fc.constant('reasoning-delta'), runId: text, reasoningId: text, delta: text }),
  fc.record({
    type: fc.constant('tool-call-start'),
    runId: text,
    toolCallId: text,
    toolName: text,
  }),
  fc.record({ type: fc.constant('tool-call-args'), runId: text, toolCallId: text, delta: text }),
  fc.record({ type: fc.constant('tool-call-end'), runId: text, toolCallId: text }),
  opt(
    {
      type: fc.constant('tool-call-result'),
      runId: text,
      toolCallId: text,
      toolName: text,
      result: anyJson,
      isError: fc.boolean(),
      replayed: fc.constant(true),
    },
    ['type', 'runId', 'toolCallId', 'toolName', 'result'],
  ),
  fc.record({ type: fc.constant('step-start'), runId: text, stepId: text }),
  opt({ type: fc.constant('step-end'), runId: text, stepId: text, usage }, [
    'type',
    'runId',
    'stepId',
  ]),
  fc.record({
    type: fc.constant('run-paused'),
    runId: text,
    sessionId: text,
    interruptions: fc.array(
      opt(
        {
          id: fc.string({ minLength: 1, maxLength: 8 }),
          kind: fc.constantFrom('tool-approval', 'input'),
          toolName: text,
          arguments: anyJson,
          message: text,
        },
        ['id', 'kind'],
      ),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  fc.record({
    type: fc.constant('run-finished'),
    runId: text,
    reply: opt(
      {
        status: fc.constant('completed'),
        runId: text,
        sessionId: text,
        agent: text,
        text,
        output: anyJson,
        usage,
      },
      ['status', 'runId', 'sessionId', 'agent', 'text'],
    ),
  }),
  opt(
    {
      type: fc.constant('run-retrying'),
      runId: text,
      code: text,
      message: text,
      retryInSeconds: fc.oneof(nat, fc.double({ min: 0, noNaN: true, noDefaultInfinity: true })),
    },
    ['type', 'runId', 'code', 'message'],
  ),
  fc.record({ type: fc.constant('run-error'), runId: text, code: text, message: text }),
] as fc.Arbitrary<Json>[];

const valid: fc.Arbitrary<Json> = opt(
  {
    message: opt(
      {
        type: fc.constant('events'),
        sessionId: id,
        runId: id,
        seq: nat,
        from: nat,
        events: fc.array(fc.oneof(...events), { minLength: 1, maxLength: 4 }),
      },
      ['type', 'sessionId', 'runId', 'seq', 'events'],
    ),
    // Up to 256 code points: zod counts those, not UTF-16 units.
    connectionId: fc.string({ minLength: 1, maxLength: 256, unit: 'binary' }),
    owner: principal,
    sentAt: nat,
  },
  ['message', 'sentAt'],
) as fc.Arbitrary<Json>;

/** Values a field should not (or may just) accept: wrong types, edges of each rule. */
const odd: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    -1.5,
    2 ** 60,
    -(2 ** 60),
    '',
    'bad id!',
    'a\u0001',
    'x'.repeat(257),
    '😀'.repeat(256),
    '😀'.repeat(257),
    '\ud800',
    { length: 0 },
    { length: null },
    { length: 300 },

    [],
    {},
    [1],
    'events',
    'text-delta',
    'completed',
    'input',
  ),
  anyJson,
);
const KEYS = [
  'extra',
  '__proto__',
  'constructor',
  'prototype',
  'type',
  'runId',
  'requestId',
  'k'.repeat(70),
];
const oddKey = fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 }));

/** Every container and value in `root` with its parent, to aim a mutation at. */
function spots(root: Json): { parent: Json[] | { [key: string]: Json }; key: string | number }[] {
  const found: { parent: Json[] | { [key: string]: Json }; key: string | number }[] = [];
  const walk = (value: Json) => {
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      found.push({ parent: value, key: Array.isArray(value) ? Number(key) : key });
      walk(child);
    }
  };
  walk(root);
  return found;
}

type Mutation = { at: number; kind: 'delete' | 'replace' | 'add'; value: Json; key: string };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('delete', 'replace', 'add'),
  value: odd,
  key: oddKey,
});

/** Applies each mutation to a fresh spot; added keys are own data properties, `__proto__` too. */
function mutate(root: Json, mutations: Mutation[]): Json {
  for (const m of mutations) {
    // A copy: constants are shared between runs, and a value put in twice would make a cycle.
    const value = structuredClone(m.value);
    const all = spots(root);
    const spot = all[m.at % all.length];
    if (spot === undefined) break;
    const { parent, key } = spot;
    if (m.kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
    } else if (m.kind === 'replace') {
      Object.defineProperty(parent, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      const target = parent[key as never] as Json;
      const into =
        target !== null && typeof target === 'object' && !Array.isArray(target) ? target : parent;
      if (Array.isArray(into)) into.push(value);
      else
        Object.defineProperty(into, m.key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
  }
  return root;
}

describe('parseEventsQueueMessage agrees with parseMessage(EventsQueueMessageSchema)', () => {
  it('on valid messages: accepted, the same value', () => {
    fc.assert(
      fc.property(valid, (message) => {
        expect(agree(JSON.stringify(message)).ok).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('on messages with fields missing, of the wrong type, extra or prototype keys', () => {
    let refused = 0;
    fc.assert(
      fc.property(
        valid,
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        (message, mutations) => {
          if (!agree(JSON.stringify(mutate(message, mutations))).ok) refused++;
        },
      ),
      { numRuns: 1500 },
    );
    // Most mutations break the message: the comparison covers refusals, not only acceptances.
    expect(refused).toBeGreaterThan(750);
  });

  it('on oversized messages (as text and as bytes) and tight limits', () => {
    fc.assert(
      fc.property(valid, fc.integer({ min: 2, max: 400 }), (message, maxBytes) => {
        const raw = JSON.stringify(message);
        agree(raw, maxBytes);
        agree(new TextEncoder().encode(raw), maxBytes);
      }),
      { numRuns: 300 },
    );
    const big = {
      message: {
        type: 'events',
        sessionId: 's',
        runId: 'r',
        seq: 0,
        events: [{ type: 'text-delta', runId: 'r', messageId: 'm', delta: 'é'.repeat(FANOUT_MAX) }],
      },
      sentAt: 1,
      requestId: 'req-1',
    };
    expect(agree(JSON.stringify(big))).toMatchObject({
      ok: false,
      error: { code: 'too-large', requestId: 'req-1' },
    });
  });

  it('on text that is not a JSON object, bytes that are not UTF-8, deep nesting', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (raw) => {
          agree(raw);
        },
      ),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        agree(bytes);
      }),
      { numRuns: 200 },
    );
    const deep = `{"message":${'['.repeat(80)}${']'.repeat(80)},"sentAt":1}`;
    expect(agree(deep)).toMatchObject({ ok: false, error: { code: 'too-deep' } });
  });

  it('on the examples the handler met: the exact error text', () => {
    const ok = {
      type: 'events',
      sessionId: 's',
      runId: 'r',
      seq: 0,
      events: [{ type: 'text-delta', runId: 'r', messageId: 'm', delta: 'x' }],
    };
    const cases: [Json, string][] = [
      [{ message: { ...ok, seq: 1.5 }, sentAt: 1 }, 'message.seq: must be an int'],
      [
        { message: { ...ok, seq: -(2 ** 60) }, sentAt: 1 },
        'message.seq: must be at least -9007199254740991; message.seq: must be at least 0',
      ],
      [
        { message: { ...ok, events: [{ type: 'nope' }] }, sentAt: 1 },
        'message.events.0.type: must be one of "run-started"',
      ],
      [
        {
          message: { type: 'x', seq: 'a', extra: 1, zz: 2 },
          owner: '',
          connectionId: '',
          sentAt: -1,
          q: 1,
        },
        'message.type: must be "events"; message.sessionId: is required; message.runId: is required (and 7 more)',
      ],
      [
        { message: ok, owner: 'a\u0001', sentAt: 1 },
        'owner: principal must be 1-1024 characters, no control characters',
      ],
    ];
    for (const [message, expected] of cases) {
      const result = agree(JSON.stringify(message));
      expect(result.ok ? '' : result.error.message).toContain(expected);
    }
    // 1e400 parses to Infinity, which is not a number to zod.
    const infinite = JSON.stringify({ message: ok, sentAt: 1 }).replace(
      '"sentAt":1',
      '"sentAt":1e400',
    );
    expect(agree(infinite)).toMatchObject({
      ok: false,
      error: { message: 'sentAt: must be a number' },
    });
  });
});
