import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, pageLimit } from '../../../lib/app/paging.js';
import { AgentKernelError } from '../../../lib/core/errors.js';

// Paging input comes straight from a query string: anything must decode or be invalid-cursor.
const code = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return err instanceof AgentKernelError ? err.code : `unexpected ${String(err)}`;
  }
};

describe('paging cursors and limits', () => {
  it('round-trips every position it gives out', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 2 ** 52 }),
        fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
        (createdAt, id) => {
          expect(decodeCursor(encodeCursor({ createdAt, id }))).toEqual({ createdAt, id });
        },
      ),
    );
  });

  it('answers any other string with invalid-cursor, never another error', () => {
    const anything = fc.oneof(
      fc.string({ maxLength: 600 }),
      fc.json().map((j) => Buffer.from(j).toString('base64url')),
      fc
        .tuple(fc.anything(), fc.anything())
        .map((t) => Buffer.from(JSON.stringify(t) ?? 'x').toString('base64url')),
    );
    fc.assert(
      fc.property(anything, (value) => {
        expect(['ok', 'invalid-cursor']).toContain(code(() => decodeCursor(value)));
      }),
      { numRuns: 500 },
    );
    expect(code(() => decodeCursor(Buffer.from('[1,"a/b"]').toString('base64url')))).toBe(
      'invalid-cursor',
    );
  });

  it('takes limits 1-100 only', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), (value) => {
        const n = Number(value);
        const valid = /^\d{1,3}$/.test(value) && n >= 1 && n <= 100;
        expect(code(() => pageLimit(value))).toBe(valid || value === '' ? 'ok' : 'invalid-cursor');
      }),
      { numRuns: 500 },
    );
    expect(pageLimit(undefined)).toBe(20);
    expect(pageLimit('100')).toBe(100);
  });
});
