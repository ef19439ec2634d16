import type * as z from 'zod';
import { FORBIDDEN_KEYS } from '../core/paused-run.js';
import type { TransportErrorCode } from './codes.js';
import {
  CLIENT_ACTIONS,
  type ClientMessage,
  ClientMessageSchema,
  type ErrorMessage,
  MAX_INBOUND_BYTES,
  RequestIdSchema,
} from './protocol.js';

export type ParseResult<T> =
  | { ok: true; message: T }
  | { ok: false; error: ErrorMessage & { code: TransportErrorCode } };

export interface ParseOptions {
  /** Largest accepted message in UTF-8 bytes (default MAX_INBOUND_BYTES). */
  maxBytes?: number;
}

/** Past this, a too-large message is not even parsed to find its requestId. */
const ECHO_PARSE_FACTOR = 4;
const MAX_REPORTED_ISSUES = 3;
const MAX_ERROR_MESSAGE = 1_000;
/** Deeper JSON is refused: later recursive checks (stores, hooks) would overflow the stack. */
export const MAX_JSON_DEPTH = 64;

/**
 * Checks one WebSocket frame from a client. Never throws: a bad frame becomes the `error`
 * message to send back, echoing the frame's requestId when it had a valid one.
 */
export function parseInbound(raw: string, options: ParseOptions = {}): ParseResult<ClientMessage> {
  return parseMessage(ClientMessageSchema, raw, { ...options, actions: CLIENT_ACTIONS });
}

/**
 * The same checks for any protocol schema (queue bodies, HTTP bodies, invoke payloads). With
 * `actions`, a missing or unknown `action` is `unknown-action` rather than a schema issue.
 */
export function parseMessage<S extends z.ZodType>(
  schema: S,
  raw: string,
  options: ParseOptions & { actions?: readonly string[] } = {},
): ParseResult<z.infer<S>> {
  const maxBytes = options.maxBytes ?? MAX_INBOUND_BYTES;
  // Characters never outnumber bytes, so only long text pays for the exact count.
  const bytes = raw.length * 3 <= maxBytes ? raw.length : Buffer.byteLength(raw, 'utf8');
  if (bytes > maxBytes) {
    const echo = bytes <= maxBytes * ECHO_PARSE_FACTOR ? tryParse(raw) : undefined;
    return fail('too-large', `The message is ${bytes} bytes; the limit is ${maxBytes}.`, echo);
  }
  const value = tryParse(raw);
  if (value === NOT_JSON) return fail('bad-json', 'The message is not valid JSON.');
  return checkValue(schema, value, options.actions);
}

/** Checks an already parsed value (a Lambda invoke payload, say) the way parseMessage does. */
export function checkMessage<S extends z.ZodType>(
  schema: S,
  value: unknown,
  options: { actions?: readonly string[] } = {},
): ParseResult<z.infer<S>> {
  return checkValue(schema, value, options.actions);
}

function checkValue<S extends z.ZodType>(
  schema: S,
  value: unknown,
  actions: readonly string[] | undefined,
): ParseResult<z.infer<S>> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail('invalid-message', 'The message must be a JSON object.');
  }
  const record = value as Record<string, unknown>;
  if (actions !== undefined && !actions.includes(record.action as string)) {
    const action = record.action;
    const detail =
      action === undefined
        ? 'The message has no "action"'
        : typeof action === 'string'
          ? `Unknown action ${quote(clip(action))}`
          : 'The "action" must be a string';
    return fail('unknown-action', `${detail}; expected one of ${actions.join(', ')}.`, value);
  }
  const problem = inspect(value);
  if (problem !== undefined) return fail('invalid-message', problem, value);
  const parsed = schema.safeParse(value, { error: defaultMessage });
  if (parsed.success) return { ok: true, message: parsed.data };
  return fail('invalid-message', describeIssues(parsed.error.issues), value);
}

/**
 * Prototype keys and nesting depth, walked without recursion so no message can overflow the
 * stack. Returns the problem, if any.
 */
function inspect(root: unknown): string | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [
    { value: root, path: '', depth: 0 },
  ];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path, depth } = item;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      return `The message is nested more than ${MAX_JSON_DEPTH} levels deep.`;
    }
    for (const [key, child] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (FORBIDDEN_KEYS.has(key))
        return `${clip(at)}: "__proto__" and "constructor" keys are not allowed.`;
      if (child !== null && typeof child === 'object')
        stack.push({ value: child, path: at, depth: depth + 1 });
    }
  }
  return undefined;
}

const NOT_JSON = Symbol('not-json');

function tryParse(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return NOT_JSON;
  }
}

function fail(code: TransportErrorCode, message: string, value?: unknown): ParseResult<never> {
  const requestId = echoRequestId(value);
  return {
    ok: false,
    error: {
      type: 'error',
      ...(requestId === undefined ? {} : { requestId }),
      code,
      message:
        message.length > MAX_ERROR_MESSAGE ? `${message.slice(0, MAX_ERROR_MESSAGE)}…` : message,
    },
  };
}

/** A requestId worth echoing: only a valid one, so nothing long or odd is reflected back. */
function echoRequestId(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const candidate = (value as Record<string, unknown>).requestId;
  return RequestIdSchema.safeParse(candidate).success ? (candidate as string) : undefined;
}

/** `path: message` for the first issues, e.g. `input.0.text: must not be empty`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.slice(0, MAX_REPORTED_ISSUES).map(describeIssue);
  const more = issues.length - MAX_REPORTED_ISSUES;
  return more > 0 ? `${lines.join('; ')} (and ${more} more)` : lines.join('; ');
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_union') {
    const inner = unionDetail(issue);
    if (inner !== undefined) return inner;
  }
  const path = issue.path.map((p) => clip(String(p))).join('.');
  const last = issue.path.at(-1);
  let message = plainMessage(issue.message);
  // Core schemas say "text must not be empty": the path already names the field.
  if (typeof last === 'string' && message.startsWith(`${last} `)) {
    message = message.slice(last.length + 1);
  }
  return path ? `${path}: ${message}` : message;
}

/**
 * A union names no field. Options of another type, or whose tag (`type`, `kind`) differs, say
 * nothing about what the sender meant: the closest remaining option does (an array input with
 * too many items, an image request without its url).
 */
function unionDetail(issue: z.core.$ZodIssueInvalidUnion): string | undefined {
  const at = (suffix: readonly PropertyKey[]) =>
    [...issue.path, ...suffix].map((p) => clip(String(p))).join('.');
  const plausible = issue.errors.filter((branch) => branch.length > 0 && !isMismatch(branch));
  if (plausible.length > 0) {
    const closest = plausible.reduce((a, b) => (b.length < a.length ? b : a));
    return describeIssues(closest.map((i) => ({ ...i, path: [...issue.path, ...i.path] })));
  }
  const tag = tagValues(issue.errors);
  if (tag !== undefined) {
    return `${at([tag.key])}: must be ${oneOf([...new Set(tag.values)])}`;
  }
  const types = rootTypes(issue.errors);
  if (types?.received === 'undefined') return `${at([])}: is required`;
  if (types?.expected.size === 1)
    return `${at([])}: must be ${article([...types.expected][0] ?? '')}`;
  return undefined;
}

/** The option is of another type or has another tag than the value. */
function isMismatch(branch: readonly z.core.$ZodIssue[]): boolean {
  const [first] = branch;
  if (branch.length === 1 && first?.code === 'invalid_union' && first.path.length === 0) {
    return first.errors.every(isMismatch);
  }
  return branch.some(
    (i) =>
      (i.code === 'invalid_type' && i.path.length === 0) ||
      (i.code === 'invalid_value' && i.path.length === 1),
  );
}

/** When no option had the value's type: the types they expected. */
function rootTypes(
  branches: readonly (readonly z.core.$ZodIssue[])[],
): { expected: Set<string>; received: string | undefined } | undefined {
  const expected = new Set<string>();
  let received: string | undefined;
  for (const branch of branches) {
    const root = branch.find((i) => i.code === 'invalid_type' && i.path.length === 0);
    const nested =
      branch.length === 1 && branch[0]?.code === 'invalid_union' ? branch[0] : undefined;
    if (root?.code === 'invalid_type') {
      expected.add(root.expected);
      received = /( received undefined|^is required)$/.test(root.message) ? 'undefined' : 'other';
    } else if (nested?.code === 'invalid_union' && nested.path.length === 0) {
      const inner = rootTypes(nested.errors);
      if (inner === undefined) return undefined;
      for (const e of inner.expected) expected.add(e);
      received = inner.received;
    } else {
      return undefined;
    }
  }
  return { expected, received };
}

/** When every option failed on the same tag field (`type`), the values that field may take. */
function tagValues(
  branches: readonly (readonly z.core.$ZodIssue[])[],
): { key: PropertyKey; values: unknown[] } | undefined {
  let key: PropertyKey | undefined;
  const values: unknown[] = [];
  for (const branch of branches) {
    const literal = branch.find((i) => i.code === 'invalid_value' && i.path.length === 1);
    const nested =
      branch.length === 1 && branch[0]?.code === 'invalid_union' ? branch[0] : undefined;
    const found =
      literal?.code === 'invalid_value'
        ? { key: literal.path[0] as PropertyKey, values: literal.values }
        : nested?.code === 'invalid_union' && nested.path.length === 0
          ? tagValues(nested.errors)
          : undefined;
    if (found === undefined || (key !== undefined && found.key !== key)) return undefined;
    key = found.key;
    values.push(...found.values);
  }
  return key === undefined ? undefined : { key, values };
}

/** Issues inside a union keep zod's defaults: say them the way defaultMessage does. */
function plainMessage(message: string): string {
  const type = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (type) return type[2] === 'undefined' ? 'is required' : `must be ${article(type[1] ?? '')}`;
  const keys = /^Unrecognized keys?: (.*)$/.exec(message);
  if (keys) return `unknown field${message.startsWith('Unrecognized keys') ? 's' : ''} ${keys[1]}`;
  return message;
}

/** Readable defaults for issues whose schema has no message of its own. */
function defaultMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${article(issue.expected)}`;
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => quote(clip(k))).join(', ');
      return `unknown field${issue.keys.length === 1 ? '' : 's'} ${keys}`;
    }
    case 'invalid_value':
      return `must be ${oneOf(issue.values)}`;
    case 'too_small':
      if (issue.origin === 'string') {
        return issue.minimum === 1
          ? 'must not be empty'
          : `must have at least ${issue.minimum} characters`;
      }
      if (issue.origin === 'array') return `must have at least ${issue.minimum} items`;
      return `must be at least ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `must have at most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `must have at most ${issue.maximum} items`;
      return `must be at most ${issue.maximum}`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    case 'invalid_union': {
      // A discriminated union names the values its key may take.
      const options = (issue as { options?: unknown[] }).options;
      return options ? `must be ${oneOf(options)}` : 'does not match any allowed shape';
    }
    default:
      return undefined;
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/** Keys come from the sender: keep what we reflect short. */
function clip(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}…` : text;
}

/** `"a"`, `"a" or "b"`, `one of "a", "b", "c"`. */
function oneOf(values: readonly unknown[]): string {
  const quoted = values.map((v) => JSON.stringify(v));
  if (quoted.length <= 2) return quoted.join(' or ');
  return `one of ${quoted.join(', ')}`;
}
