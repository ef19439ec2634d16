import { invalidType, numberIssues, unrecognizedKeys } from '../../core/schema-words.js';
import type { QuotaLimits } from './quotas.js';

const NAMES: readonly string[] = ['connections', 'runsInFlight', 'runsPerMinute', 'tokensPerDay'];

/**
 * A principal's limits checked by hand, as QuotaLimitsSchema checks them (value, or its first
 * issue's message: test/unit/app/quota-limits-check.test.ts compares both), so the stores that
 * read an override at every connect bundle no zod.
 */
export function checkQuotaLimits(
  value: unknown,
): { data: QuotaLimits; message?: undefined } | { message: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { message: invalidType('object', value) };
  }
  const given = value as Record<string, unknown>;
  const data: Record<string, unknown> = {};
  for (const name of NAMES) {
    if (!Object.hasOwn(given, name)) continue;
    const limit = given[name];
    // .optional(): an own key set to undefined is kept as it is.
    const issue = limit === undefined ? undefined : numberIssues(limit, { int: true, min: 0 })[0];
    if (issue) return { message: issue.message };
    data[name] = limit;
  }
  const extra = Object.keys(given).filter((key) => !NAMES.includes(key));
  if (extra.length > 0) return { message: unrecognizedKeys(extra) };
  return { data: data as QuotaLimits };
}
