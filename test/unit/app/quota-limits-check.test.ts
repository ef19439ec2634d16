import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkQuotaLimits } from '../../../lib/app/ports/quota-limits-check.js';
import { QuotaLimitsSchema } from '../../../lib/app/ports/quotas.js';

/** The schema's answer as the stores read it: the value, or the first issue's message. */
function bySchema(value: unknown) {
  const parsed = QuotaLimitsSchema.safeParse(value);
  return parsed.success ? { data: parsed.data } : { message: parsed.error.issues[0]?.message };
}

const limit = fc.oneof(
  fc.nat(),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0.5, -0, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, -(2 ** 53), undefined),
  fc.constantFrom('1', null, true, [1], { n: 1 }),
);

describe('quota limits checked by hand', () => {
  it('answers as QuotaLimitsSchema does on generated overrides (property)', () => {
    const override = fc.record(
      {
        connections: limit,
        runsInFlight: limit,
        runsPerMinute: limit,
        tokensPerDay: limit,
        extra: fc.constant(1),
        constructor: fc.constant(2),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(override, fc.jsonValue({ maxDepth: 1 })), (value) => {
        expect(checkQuotaLimits(value)).toEqual(bySchema(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the usual override and refuses a bad one with the schema’s message', () => {
    expect(checkQuotaLimits({ connections: 2, tokensPerDay: 10_000 })).toEqual({
      data: { connections: 2, tokensPerDay: 10_000 },
    });
    expect(checkQuotaLimits({ runsPerMinute: -1 })).toEqual({
      message: 'Too small: expected number to be >=0',
    });
    expect(checkQuotaLimits({ runsPerMinute: 1, burst: 3 })).toEqual({
      message: 'Unrecognized key: "burst"',
    });
  });
});
