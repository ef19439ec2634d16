import { article, clip, oneOf, quote } from './gate.js';

/**
 * A few zod-alike checks written by hand, for a function that checks one message and should not
 * bundle zod (the fan-out: events-queue-check.ts). Each reports what the gate (parse.ts) makes of
 * the matching zod schema's issues, in zod's order: fields in schema order, then unknown fields.
 * Only for JSON values (no undefined, no functions); output objects are rebuilt in schema order,
 * as zod rebuilds them, `unknown()` values passed through as they are.
 */

export type Path = readonly PropertyKey[];
export interface Issue {
  path: Path;
  message: string;
}
/** What a check returns for a value it refused (its issues are pushed). */
export const BAD: unique symbol = Symbol('bad');
export type Check = (value: unknown, path: Path, issues: Issue[]) => unknown;
/** A rule on a value of the right type: its issue's message, or undefined when it holds. */
export type Rule<T> = (value: T) => string | undefined;

function typeIssue(value: unknown, expected: string, path: Path, issues: Issue[]): typeof BAD {
  const message = value === undefined ? 'is required' : `must be ${article(expected)}`;
  issues.push({ path, message });
  return BAD;
}

/** Every rule runs (zod's string and number checks do not stop at the first). */
function ruled<T>(value: T, rules: readonly Rule<T>[], path: Path, issues: Issue[]): unknown {
  let ok = true;
  for (const rule of rules) {
    const message = rule(value);
    if (message !== undefined) {
      issues.push({ path, message });
      ok = false;
    }
  }
  return ok ? value : BAD;
}

/** Length bounds, as zod's `.min()`/`.max()` on a string or an array. */
export interface Lengths {
  min?: number;
  max?: number;
}

/** z.string() with length bounds, then `rules`. */
export function string(lengths: Lengths = {}, ...rules: Rule<string>[]): Check {
  return (value, path, issues) => {
    if (typeof value !== 'string') {
      typeIssue(value, 'string', path, issues);
      lengthIssues(value, lengths, path, issues);
      return BAD;
    }
    // A length issue does not stop the rules (zod's do not abort).
    const fits = lengthIssues(value, lengths, path, issues);
    const checked = ruled(value, rules, path, issues);
    return fits ? checked : BAD;
  };
}

/**
 * zod measures a length whenever the value has one, even after its type was wrong (`[]` for a
 * string of at least 1 says both), strings in code points; an object's `length` field counts too.
 */
function lengthIssues(value: unknown, bounds: Lengths, path: Path, issues: Issue[]): boolean {
  if (value === null || value === undefined) return true;
  const units = (value as { length?: unknown }).length;
  if (units === undefined) return true;
  const origin = Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : 'unknown';
  const count = (inDoubt: boolean) =>
    typeof value === 'string' && inDoubt ? codePoints(value) : (units as number);
  let ok = true;
  const { min: low, max: high } = bounds;
  if (
    low !== undefined &&
    !(count((units as number) >= low && (units as number) < low * 2) >= low)
  ) {
    const message =
      origin === 'array'
        ? `must have at least ${low} items`
        : origin === 'string'
          ? low === 1
            ? 'must not be empty'
            : `must have at least ${low} characters`
          : `must be at least ${low}`;
    issues.push({ path, message });
    ok = false;
  }
  if (high !== undefined && !(count((units as number) > high) <= high)) {
    const message =
      origin === 'array'
        ? `must have at most ${high} items`
        : origin === 'string'
          ? `must have at most ${high} characters`
          : `must be at most ${high}`;
    issues.push({ path, message });
    ok = false;
  }
  return ok;
}

/** Code points, a lone surrogate counted as one. */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** z.number(): finite (JSON's 1e400 parses to Infinity, which zod refuses). */
export function number(...rules: Rule<number>[]): Check {
  return (value, path, issues) =>
    typeof value === 'number' && Number.isFinite(value)
      ? ruled(value, rules, path, issues)
      : typeIssue(value, 'number', path, issues);
}

/** z.number().int(): a safe integer; a fraction stops there, a huge one goes on to `rules`. */
export function int(...rules: Rule<number>[]): Check {
  const safe: Rule<number> = (n) =>
    n > Number.MAX_SAFE_INTEGER
      ? `must be at most ${Number.MAX_SAFE_INTEGER}`
      : n < Number.MIN_SAFE_INTEGER
        ? `must be at least ${Number.MIN_SAFE_INTEGER}`
        : undefined;
  const checkNumber = number(safe, ...rules);
  return (value, path, issues) => {
    if (typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value)) {
      issues.push({ path, message: 'must be an int' });
      return BAD;
    }
    return checkNumber(value, path, issues);
  };
}

export const min =
  (minimum: number): Rule<number> =>
  (n) =>
    n < minimum ? `must be at least ${minimum}` : undefined;

export const matches =
  (pattern: RegExp, message: string): Rule<string> =>
  (s) =>
    pattern.test(s) ? undefined : message;

export const boolean: Check = (value, path, issues) =>
  typeof value === 'boolean' ? value : typeIssue(value, 'boolean', path, issues);

/** z.literal / z.enum. */
export function oneOfValues(...values: readonly unknown[]): Check {
  return (value, path, issues) => {
    if (values.includes(value)) return value;
    issues.push({ path, message: `must be ${oneOf(values)}` });
    return BAD;
  };
}

/** z.unknown() as an object's field: anything, but present. */
export const unknown: Check = (value, path, issues) =>
  value === undefined ? typeIssue(value, 'unknown', path, issues) : value;

/** z.array(item) with length bounds (measured as for strings, whatever the value). */
export function array(item: Check, lengths: Lengths = {}): Check {
  return (value, path, issues) => {
    if (!Array.isArray(value)) {
      typeIssue(value, 'array', path, issues);
      lengthIssues(value, lengths, path, issues);
      return BAD;
    }
    let ok = true;
    const out = value.map((element, index) => {
      const checked = item(element, [...path, index], issues);
      if (checked === BAD) ok = false;
      return checked;
    });
    return lengthIssues(value, lengths, path, issues) && ok ? out : BAD;
  };
}

const OPTIONAL = Symbol('optional');
type Field = Check & { [OPTIONAL]?: true };

/** An optional field: absent (or undefined) is fine, and absent in the output. */
export function optional(check: Check): Field {
  return Object.assign(
    (value: unknown, path: Path, issues: Issue[]) => check(value, path, issues),
    {
      [OPTIONAL]: true as const,
    },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** z.strictObject: the fields in order, then any unknown ones as one issue. */
export function strictObject(shape: Record<string, Field>): Check {
  const names = Object.keys(shape);
  return (value, path, issues) => {
    if (!isObject(value)) return typeIssue(value, 'object', path, issues);
    let ok = true;
    const out: Record<string, unknown> = {};
    for (const name of names) {
      const field = shape[name] as Field;
      const present = Object.hasOwn(value, name);
      // zod's optional takes undefined as absent (a JS caller's `principal: claims.sub`).
      if ((!present || value[name] === undefined) && field[OPTIONAL]) continue;
      const checked = field(present ? value[name] : undefined, [...path, name], issues);
      if (checked === BAD) ok = false;
      // defineProperty: a field named like a prototype key stays data (none is, today).
      else
        Object.defineProperty(out, name, {
          value: checked,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    const extra = Object.keys(value).filter((key) => !Object.hasOwn(shape, key));
    if (extra.length > 0) {
      const keys = extra.map((key) => quote(clip(key))).join(', ');
      issues.push({ path, message: `unknown field${extra.length === 1 ? '' : 's'} ${keys}` });
      ok = false;
    }
    return ok ? out : BAD;
  };
}

/** z.discriminatedUnion: the option its `key` names, or one issue naming the values it may take. */
export function taggedUnion(key: string, options: ReadonlyMap<unknown, Check>): Check {
  const tags = [...options.keys()];
  return (value, path, issues) => {
    if (!isObject(value)) return typeIssue(value, 'object', path, issues);
    const option = Object.hasOwn(value, key) ? options.get(value[key]) : undefined;
    if (option !== undefined) return option(value, path, issues);
    issues.push({ path: [...path, key], message: `must be ${oneOf(tags)}` });
    return BAD;
  };
}
