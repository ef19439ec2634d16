import * as z from 'zod';

// The context's field types: each refuses a value AWS would, with a message naming the range.

/**
 * A context value AWS would refuse (or one the kernel cannot work with), found at synth. Shaped
 * like lib's AgentKernelError (code + message), which infra may not import (architecture.md).
 */
export class InvalidContextError extends Error {
  readonly code = 'invalid-context';

  constructor(message: string) {
    super(message);
    this.name = 'InvalidContextError';
  }
}

/** CloudWatch Logs' RetentionInDays values (anything else fails at deploy, cfn-lint E3030). */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
] as const;

export const list = z
  .union([z.array(z.string()), z.string()], { error: 'must be a comma-separated list' })
  .transform((value) =>
    (Array.isArray(value) ? value : value.split(',')).map((item) => item.trim()).filter(Boolean),
  );
export const flag = z.union(
  [z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')],
  { error: 'must be true or false' },
);
/** An integer within [min, max]; the message names the range and why it is the range. */
export const between = (min: number, max: number, fallback: number, why: string) =>
  z.coerce
    .number({ error: `must be a whole number ${min}..${max} (${why})` })
    .int(`must be a whole number ${min}..${max} (${why})`)
    .min(min, `must be ${min}..${max} (${why})`)
    .max(max, `must be ${min}..${max} (${why})`)
    .default(fallback);
const retentionValues = `must be one of CloudWatch Logs' retention values: ${LOG_RETENTION_DAYS.join(', ')}`;
export const retention = z.coerce
  .number({ error: retentionValues })
  .refine((days) => (LOG_RETENTION_DAYS as readonly number[]).includes(days), {
    message: retentionValues,
  })
  .default(30);
// Secrets Manager names: letters, digits and /_+=.@- (1..512).
export const secretName = z
  .string()
  .regex(
    /^[A-Za-z0-9/_+=.@-]{1,512}$/,
    'must be a Secrets Manager name (letters, digits, /_+=.@-)',
  );
export const origin = z
  .string()
  .regex(
    /^(\*|https?:\/\/[^/\s*]+(:\d+)?)$/,
    'each must be * or an origin like https://app.example.com',
  );
export const YEAR = 365 * 24 * 3600;
export const endpoint = z.url({
  protocol: /^https?$/,
  error: 'must be an http:// or https:// URL',
});
