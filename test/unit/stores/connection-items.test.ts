import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { ConnectionSchema, SubscriptionFormatSchema } from '../../../lib/app/ports/connections.js';
import {
  checkConnection,
  checkConnItem,
  checkSubItem,
} from '../../../lib/stores/dynamodb/connection-items.js';

// The schemas the store checked its items with before it checked them by hand: the oracle.
const ConnItemSchema = z.extend(ConnectionSchema, { sessions: z.optional(z.instanceof(Set)) });
const SubItemSchema = z.extend(ConnectionSchema, {
  sessionId: z.string(),
  format: SubscriptionFormatSchema,
});

const good = {
  connectionId: 'c-1',
  principal: 'user-1',
  endpoint: 'https://example.execute-api.us-east-1.amazonaws.com/prod',
  connectedAt: 1_700_000_000_000,
};

// Field values near the rules' edges, and values of the wrong type.
const anyValue = fc.oneof(
  fc.constantFrom('', 'c', 'x'.repeat(256), 'x'.repeat(257), 'native', 'ag-ui', 'AG-UI'),
  fc.string(),
  fc.integer(),
  fc.constantFrom(0.5, Number.MAX_SAFE_INTEGER + 2, -1, Number.NaN),
  fc.constantFrom(null, undefined, true, [], {}, new Set(['s-1']), new Set()),
);
const fieldNames = fc.constantFrom(
  'connectionId',
  'principal',
  'endpoint',
  'connectedAt',
  'sessions',
  'sessionId',
  'format',
  'other',
);
const item = fc
  .record({
    base: fc.constantFrom(
      good,
      { ...good, principal: undefined },
      { ...good, sessions: new Set(['s-1']) },
      { ...good, sessionId: 's-1', format: 'native' },
      { ...good, sessionId: 's-1', format: 'ag-ui' },
    ),
    changes: fc.array(fc.tuple(fieldNames, fc.option(anyValue, { nil: 'drop' })), {
      maxLength: 3,
    }),
  })
  .map(({ base, changes }) => {
    const value: Record<string, unknown> = { ...base };
    for (const [name, next] of changes) {
      if (next === 'drop') delete value[name];
      else value[name] = next;
    }
    return value;
  });

const cases = [
  ['a connection', ConnectionSchema, checkConnection],
  ['a CONN item', ConnItemSchema, checkConnItem],
  ['a subscription item', SubItemSchema, checkSubItem],
] as const;

describe('connection items checked by hand', () => {
  for (const [what, schema, check] of cases) {
    it(`accepts ${what} exactly when its schema does, with the same value`, () => {
      fc.assert(
        fc.property(item, (value) => {
          const parsed = schema.safeParse(value);
          const checked = check(value);
          expect(checked.ok).toBe(parsed.success);
          if (checked.ok && parsed.success) {
            const data = Object.fromEntries(
              Object.entries(parsed.data).filter(([, v]) => v !== undefined),
            );
            expect(checked.value).toEqual(data);
          }
        }),
        { numRuns: 2_000 },
      );
    });
  }

  it('names the field and the problem', () => {
    expect(checkSubItem({ ...good, sessionId: 's-1', format: 'html' })).toEqual({
      ok: false,
      message: 'format: must be "native" or "ag-ui"',
    });
    expect(checkConnection({ ...good, connectedAt: 1.5 })).toEqual({
      ok: false,
      message: 'connectedAt: must be an int',
    });
    expect(checkConnItem({ ...good, sessions: ['s-1'] })).toEqual({
      ok: false,
      message: 'sessions: must be a set',
    });
    expect(checkConnection('c-1')).toEqual({ ok: false, message: 'must be an object' });
  });
});
