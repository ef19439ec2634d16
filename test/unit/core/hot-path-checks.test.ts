import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyJson } from '../../../lib/core/json-copy.js';
import { newSession, SessionDataSchema } from '../../../lib/core/session.js';
import { checkSessionData } from '../../../lib/core/session-check.js';

/** A valid session (optional fields present or not)… */
const validSession = fc.record(
  {
    schemaVersion: fc.constant(1),
    id: fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
    owner: fc.string(),
    incarnation: fc.string({ minLength: 1, maxLength: 64 }),
    agent: fc.string(),
    state: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
    context: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
    turns: fc.nat(),
    paused: fc.array(fc.record({ runId: fc.string(), expiresAt: fc.integer() }), { maxLength: 2 }),
    lastReply: fc.record(
      { runId: fc.string(), text: fc.string(), output: fc.jsonValue({ maxDepth: 1 }) },
      { requiredKeys: ['runId', 'text'] },
    ),
    createdAt: fc.integer(),
    updatedAt: fc.integer(),
  },
  { requiredKeys: ['schemaVersion', 'id', 'state', 'context', 'turns', 'createdAt', 'updatedAt'] },
);
const KEYS = [
  ...['schemaVersion', 'id', 'owner', 'incarnation', 'agent', 'state', 'context', 'turns'],
  ...['paused', 'lastReply', 'createdAt', 'updatedAt', 'stray'],
];
/** …with up to two fields (or a stray key) set to something else, often invalid. */
const nearSession = fc
  .tuple(
    validSession,
    fc.array(
      fc.tuple(
        fc.constantFrom(...KEYS),
        fc.oneof(
          fc.constant(undefined),
          fc.integer({ min: -2, max: 70 }),
          fc.double(),
          fc.string({ maxLength: 130 }),
          fc.constant([{ runId: 'r', expiresAt: 1, extra: 1 }]),
          fc.constant({ runId: 'r', text: 't', other: 1 }),
          fc.constant({ k: undefined }),
          fc.anything({ maxDepth: 1 }),
        ),
      ),
      { maxLength: 2 },
    ),
  )
  .map(([session, changes]) => {
    const out: Record<string, unknown> = { ...session };
    for (const [key, value] of changes) out[key] = value;
    return out;
  });

describe('checkSessionData (the session schema, checked by hand on every load)', () => {
  it('accepts exactly what SessionDataSchema accepts, with the same data', () => {
    fc.assert(
      fc.property(fc.oneof(nearSession, validSession, fc.anything({ maxDepth: 2 })), (value) => {
        // Act
        const fast = checkSessionData(value);
        const schema = SessionDataSchema.safeParse(value);

        // Assess
        expect(fast.success).toBe(schema.success);
        if (fast.success && schema.success) expect(fast.data).toEqual(schema.data);
      }),
      { numRuns: 400 },
    );
  }, 60_000);

  it('leaves a __proto__ key to the schema (the counterexample fast-check found)', () => {
    // Prepare
    const value = JSON.parse(
      '{"schemaVersion":1,"id":".","state":{"__proto__":[]},"context":{},"turns":0,"createdAt":0,"updatedAt":0}',
    );

    // Act
    const fast = checkSessionData(value);
    const schema = SessionDataSchema.safeParse(value);

    // Assess
    expect(fast.success).toBe(schema.success);
    if (fast.success && schema.success) expect(fast.data).toEqual(schema.data);
  });

  it('words a refusal as the schema does', () => {
    // Act
    const result = checkSessionData({ ...newSession('s1', 1), turns: -1 });

    // Assess
    expect(result).toEqual({
      success: false,
      message: SessionDataSchema.safeParse({ ...newSession('s1', 1), turns: -1 }).error?.issues[0]
        ?.message,
    });
  });
});

describe('copyJson (the per-turn copy of the framework context)', () => {
  it('copies JSON deeply, as structuredClone does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        // Act
        const copy = copyJson(value);

        // Assess
        expect(copy).toStrictEqual(structuredClone(value));
        if (value !== null && typeof value === 'object') expect(copy).not.toBe(value);
      }),
    );
  });

  it('shares nothing with the original', () => {
    // Prepare
    const original = { a: { b: [1, { c: 'x' }] } };

    // Act
    const copy = copyJson(original);
    (copy.a.b[1] as { c: string }).c = 'changed';

    // Assess
    expect(original.a.b[1]).toEqual({ c: 'x' });
  });

  it('falls back to structuredClone for values that are not plain JSON', () => {
    // Prepare
    const when = new Date(5);
    const weird = JSON.parse('{"__proto__": {"polluted": true}, "k": 1}');

    // Act
    const copied = copyJson({ when, nested: [new Map([[1, 2]])] });
    const protoCopy = copyJson(weird);

    // Assess
    expect(copied.when).toBeInstanceOf(Date);
    expect(copied.when).not.toBe(when);
    expect(copied.nested[0]).toEqual(new Map([[1, 2]]));
    expect(Object.getPrototypeOf(protoCopy)).toBe(Object.prototype);
    expect(Object.hasOwn(protoCopy, '__proto__')).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
