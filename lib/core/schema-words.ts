/**
 * zod's words for the issues a hand check finds: checks written without zod (config-fast.ts,
 * model-prices-check.ts, tracing/config-fast.ts) answer with the schema's messages, so a
 * function that bundles no zod fails as one that does. Their tests compare both.
 */

/** What `value` is, named as zod's messages name it. */
export function typeName(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && 'constructor' in value && value.constructor) {
      return (value.constructor as { name: string }).name;
    }
  }
  return typeof value;
}

export const invalidType = (expected: string, value: unknown): string =>
  `Invalid input: expected ${expected}, received ${typeName(value)}`;

export const oneOf = (values: readonly string[]): string =>
  `Invalid option: expected one of ${values.map((v) => `"${v}"`).join('|')}`;

export const tooSmall = (origin: string, bound: string): string =>
  `Too small: expected ${origin} to be ${bound}`;

export const tooBig = (origin: string, bound: string): string =>
  `Too big: expected ${origin} to be ${bound}`;

export const shortString = (min: number): string =>
  `Too small: expected string to have >=${min} characters`;

export const longString = (max: number): string =>
  `Too big: expected string to have <=${max} characters`;

export const unrecognizedKeys = (keys: readonly string[]): string =>
  `Unrecognized key${keys.length > 1 ? 's' : ''}: ${keys.map((k) => `"${k}"`).join(', ')}`;

/** An issue as a hand check reports it: the path below the value checked, and the message. */
export interface HandIssue {
  readonly path: PropertyKey[];
  readonly message: string;
}

/** A string's length issues, as z.string().min(min).max(max) gives them. */
export function stringIssues(value: unknown, min = 0, max = Infinity): HandIssue[] {
  if (typeof value !== 'string') return [{ path: [], message: invalidType('string', value) }];
  if (value.length < min) return [{ path: [], message: shortString(min) }];
  if (value.length > max) return [{ path: [], message: longString(max) }];
  return [];
}

/** The bounds of a z.number() chain, in the order the schema applies them. */
export interface NumberRule {
  readonly int?: boolean;
  /** `>= min`, or `> 0` for positive(). */
  readonly min?: number | 'positive';
  readonly max?: number;
}

/** A number's issues, as z.number() with `rule`'s checks gives them. */
export function numberIssues(value: unknown, rule: NumberRule): HandIssue[] {
  const issue = (message: string): HandIssue => ({ path: [], message });
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return [issue(invalidType('number', value))];
  }
  const issues: HandIssue[] = [];
  if (rule.int) {
    if (!Number.isInteger(value)) return [issue(invalidType('int', value))];
    if (!Number.isSafeInteger(value)) {
      issues.push(
        value > 0
          ? issue(tooBig('int', `<=${Number.MAX_SAFE_INTEGER}`))
          : issue(tooSmall('int', `>=${Number.MIN_SAFE_INTEGER}`)),
      );
    }
  }
  if (rule.min === 'positive') {
    if (value <= 0) issues.push(issue(tooSmall('number', '>0')));
  } else if (rule.min !== undefined && value < rule.min) {
    issues.push(issue(tooSmall('number', `>=${rule.min}`)));
  }
  if (rule.max !== undefined && value > rule.max)
    issues.push(issue(tooBig('number', `<=${rule.max}`)));
  return issues;
}
