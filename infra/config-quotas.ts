import * as z from 'zod';

/** The stack's fair-use limits (an absent one is no limit); a principal's override item wins. */
export interface QuotaSettings {
  readonly enabled: boolean;
  readonly connections?: number;
  readonly runsInFlight?: number;
  readonly runsPerMinute?: number;
  readonly tokensPerDay?: number;
}

/** A fair-use limit: a whole number ≥ 1, or `none` for no limit. */
export const quotaLimit = (fallback: number | 'none') =>
  z
    .union(
      [
        z.literal('none'),
        z.coerce
          .number()
          .int('must be a whole number or none')
          .min(1, 'must be at least 1, or none (no limit)')
          .max(1_000_000_000_000, 'must be at most 10^12, or none'),
      ],
      { error: 'must be a whole number 1..10^12, or none (no limit)' },
    )
    .default(fallback);

/** The context's fair-use keys, as parsed. */
export interface QuotaContext {
  readonly quotas: boolean;
  readonly quotaConnections: number | 'none';
  readonly quotaRunsInFlight: number | 'none';
  readonly quotaRunsPerMinute: number | 'none';
  readonly quotaTokensPerDay: number | 'none';
}

export function quotasFromContext(c: QuotaContext): QuotaSettings {
  const pick = (value: number | 'none') => (value === 'none' ? undefined : value);
  const limits = {
    connections: pick(c.quotaConnections),
    runsInFlight: pick(c.quotaRunsInFlight),
    runsPerMinute: pick(c.quotaRunsPerMinute),
    tokensPerDay: pick(c.quotaTokensPerDay),
  };
  return {
    enabled: c.quotas,
    ...Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)),
  };
}
