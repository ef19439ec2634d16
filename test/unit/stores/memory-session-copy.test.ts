import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newSession, type SessionData } from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { copyStoredJson, NOT_PLAIN_JSON } from '../../../lib/stores/json.js';

/** What the store gave before it kept copies: the session written as JSON text and read back. */
const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value));

/** Whether a key the stores refuse (`__proto__`, `constructor`) is anywhere in the value. */
const holdsForbiddenKey = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  Object.entries(value).some(
    ([key, item]) => key === '__proto__' || key === 'constructor' || holdsForbiddenKey(item),
  );

/** Values JSON keeps, changes (-0, undefined, NaN, holes, Dates, toJSON) or drops. */
const awkward = fc.anything({
  maxDepth: 3,
  withBoxedValues: true,
  withDate: true,
  withNullPrototype: true,
  withSparseArray: true,
  withObjectString: true,
});

describe('InMemorySessionStore keeps its own copy, as a JSON round trip gives it', () => {
  it('loads exactly what writing the session as JSON text and reading it back gives', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), awkward)),
        async (state) => {
          // Prepare
          const store = new InMemorySessionStore();
          const data = { ...newSession('s1', 1), state } as SessionData;
          let expected: unknown;
          try {
            expected = roundTrip(data);
          } catch {
            return; // not JSON at all (a BigInt): refused, as checked below
          }

          // Act
          const save = store.save(data, 0).then(
            () => 'saved',
            (err: { code?: string }) => err.code,
          );
          const outcome = await save;
          const loaded = outcome === 'saved' ? await store.load('s1') : undefined;

          // Assess
          if (outcome === 'saved') expect(loaded?.data).toStrictEqual(expected);
          else expect(outcome).toBe('invalid-record'); // a forbidden key, as before
        },
      ),
      { numRuns: 300 },
    );
  });

  it('copies plain JSON by hand, identical to the round trip, -0 included', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, -0), (value, zero) => {
        // Act
        const copy = copyStoredJson({ value, zero });

        // Assess: a forbidden key (fast-check writes `__proto__` too) is left to the round trip
        if (holdsForbiddenKey(value)) return void expect(copy).toBe(NOT_PLAIN_JSON);
        expect(copy).toStrictEqual(roundTrip({ value, zero }));
        expect(Object.is((copy as { zero: number }).zero, 0)).toBe(true);
      }),
    );
  });

  it('leaves to the round trip what it would change or refuse', () => {
    // Prepare
    const values = [
      { a: undefined },
      [1, undefined],
      // biome-ignore lint/suspicious/noSparseArray: a hole is one of the cases
      [1, , 2],
      { n: Number.NaN },
      { when: new Date(0) },
      { toJSON: () => 1 },
      JSON.parse('{"__proto__":{"x":1}}'),
      { nested: { constructor: 1 } },
      { big: 1n },
    ];

    // Act
    const copies = values.map((value) => copyStoredJson(value));

    // Assess
    expect(copies.every((copy) => copy === NOT_PLAIN_JSON)).toBe(true);
  });

  it('takes the round trip when an inherited toJSON would change every object', () => {
    // Prepare
    const proto = Object.prototype as { toJSON?: () => unknown };
    const value = { a: { b: 1 } };

    // Act
    proto.toJSON = () => 'replaced';
    let copy: unknown;
    let expected: unknown;
    try {
      copy = copyStoredJson(value);
      expected = roundTrip(value);
    } finally {
      delete proto.toJSON;
    }

    // Assess
    expect(copy).toBe(NOT_PLAIN_JSON);
    expect(expected).toBe('replaced');
  });

  it('shares no object of the history with the caller that saved or loaded it', async () => {
    // Prepare
    const store = new InMemorySessionStore();
    const history = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }];
    const data = { ...newSession('s1', 1), state: { r: { schemaVersion: 1, history } } };
    await store.save(data, 0);

    // Act
    history[0]!.content[0]!.text = 'changed after save';
    history.push({ role: 'assistant', content: [] });
    const first = await store.load('s1');
    if (!first) throw new Error('the session was not stored');
    const loaded = (first.data.state.r as { history: typeof history }).history;
    loaded[0]!.content[0]!.text = 'changed after load';
    loaded[0]!.content.push({ type: 'text', text: 'more' });
    const second = await store.load('s1');

    // Assess
    expect(second?.data.state.r).toEqual({
      schemaVersion: 1,
      history: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
  });

  it('keeps the stored session when a save loses the race, and refuses a forbidden key', async () => {
    // Prepare
    const store = new InMemorySessionStore();
    const data = newSession('s1', 1);
    await store.save(data, 0);
    const poisoned = { ...data, state: JSON.parse('{"r":{"constructor":{}}}') };

    // Act
    const stale = store.save({ ...data, turns: 9 }, 0);
    const refused = store.save(poisoned, 1);

    // Assess
    await expect(stale).rejects.toMatchObject({ code: 'session-conflict' });
    await expect(refused).rejects.toMatchObject({
      code: 'invalid-record',
      message: expect.stringContaining('forbidden key "constructor"'),
    });
    expect(await store.load('s1')).toEqual({ data, version: 1 });
  });
});
