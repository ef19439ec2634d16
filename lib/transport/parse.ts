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
import { TOO_LARGE_ISSUE } from './sizing.js';

export type ParseResult<T> =
  | { ok: true; message: T }
  | { ok: false; error: ErrorMessage & { code: TransportErrorCode } };

export interface ParseOptions {
  /** Largest accepted message in UTF-8 bytes (default MAX_INBOUND_BYTES). */
  maxBytes?: number;
}

/**
 * What a front hands the gate: text, or the raw bytes when the transport delivered bytes (a
 * binary WebSocket frame, a base64 HTTP body), which must be valid UTF-8.
 */
export type RawMessage = string | Uint8Array;

/** Past this, a too-large message is not even parsed to find its requestId. */
const ECHO_PARSE_FACTOR = 4;
const MAX_REPORTED_ISSUES = 3;
const MAX_ERROR_MESSAGE = 1_000;
/** Deeper JSON is refused: later recursive checks (stores, hooks) would overflow the stack. */
export const MAX_JSON_DEPTH = 64;
/** Keys that reach an object's prototype when code assigns or merges them. */
export const GATE_FORBIDDEN_KEYS: ReadonlySet<string> = new Set([...FORBIDDEN_KEYS, 'prototype']);

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Checks one WebSocket frame from a client. Never throws: a bad frame becomes the `error`
 * message to send back, echoing the frame's requestId when it had a valid one.
 */
export function parseInbound(
  raw: RawMessage,
  options: ParseOptions = {},
): ParseResult<ClientMessage> {
  return parseMessage(ClientMessageSchema, raw, { ...options, actions: CLIENT_ACTIONS });
}

/**
 * The one input gate of every front (WebSocket frames, HTTP and SSE bodies, AG-UI, queue bodies;
 * invoke payloads through checkMessage). In order: size (`too-large`), UTF-8 (`invalid-utf8`),
 * JSON (`bad-json`), an object (`invalid-message`), depth (`too-deep`), prototype keys
 * (`forbidden-key`), with `actions` the action (`unknown-action`), then the strict schema
 * (`invalid-message`, or `too-large` for a size limit inside it). Never throws.
 */
export function parseMessage<S extends z.ZodType>(
  schema: S,
  raw: RawMessage,
  options: ParseOptions & { actions?: readonly string[] } = {},
): ParseResult<z.infer<S>> {
  const maxBytes = options.maxBytes ?? MAX_INBOUND_BYTES;
  const bytes = byteLength(raw, maxBytes);
  if (bytes > maxBytes) {
    const text = bytes <= maxBytes * ECHO_PARSE_FACTOR ? decode(raw) : undefined;
    const echo = text === undefined ? undefined : tryParse(text);
    return fail('too-large', `The message is ${bytes} bytes; the limit is ${maxBytes}.`, echo);
  }
  const text = decode(raw);
  if (text === undefined) return fail('invalid-utf8', 'The message is not valid UTF-8.');
  const value = tryParse(text);
  if (value === NOT_JSON) return fail('bad-json', 'The message is not valid JSON.');
  return checkValue(schema, value, options.actions, Number.POSITIVE_INFINITY);
}

/**
 * Checks an already parsed value (a Lambda invoke payload, say) the way parseMessage does,
 * its size measured as the JSON it would be.
 */
export function checkMessage<S extends z.ZodType>(
  schema: S,
  value: unknown,
  options: ParseOptions & { actions?: readonly string[] } = {},
): ParseResult<z.infer<S>> {
  return checkValue(schema, value, options.actions, options.maxBytes ?? MAX_INBOUND_BYTES);
}

/** Bytes of the message; characters never outnumber bytes, so short text pays no exact count. */
function byteLength(raw: RawMessage, maxBytes: number): number {
  if (typeof raw !== 'string') return raw.byteLength;
  return raw.length * 3 <= maxBytes ? raw.length : Buffer.byteLength(raw, 'utf8');
}

/** The text of the message, or undefined when its bytes are not UTF-8 (never U+FFFD). */
function decode(raw: RawMessage): string | undefined {
  if (typeof raw === 'string') return raw;
  try {
    return UTF8.decode(raw);
  } catch {
    return undefined;
  }
}

function checkValue<S extends z.ZodType>(
  schema: S,
  value: unknown,
  actions: readonly string[] | undefined,
  maxBytes: number,
): ParseResult<z.infer<S>> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail('invalid-message', 'The message must be a JSON object.');
  }
  const problem = inspect(value, maxBytes);
  if (problem !== undefined) return fail(problem.code, problem.message, value);
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
  const parsed = schema.safeParse(value, { error: defaultMessage });
  if (parsed.success) return { ok: true, message: parsed.data };
  const { issues } = parsed.error;
  const sized = issues.filter(isSizeIssue);
  if (sized.length > 0) return fail('too-large', describeIssues(sized), value);
  return fail('invalid-message', describeIssues(issues), value);
}

/** A size limit inside the schema (a run input over 96 KB). */
function isSizeIssue(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'custom' && issue.params?.gate === TOO_LARGE_ISSUE.gate;
}

type Problem = { code: TransportErrorCode; message: string };

/**
 * Size (of a parsed value, as JSON), nesting depth and prototype keys, walked without
 * recursion so no message can overflow the stack; the walk stops once the size is over.
 * Reported in that order, whichever the walk meets first (text was sized before parsing).
 */
function inspect(root: unknown, maxBytes: number): Problem | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [
    { value: root, path: '', depth: 0 },
  ];
  const sized = maxBytes !== Number.POSITIVE_INFINITY;
  let bytes = 0;
  let deep = false;
  let key: string | undefined;
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path, depth } = item;
    if (sized) bytes += ownBytes(value);
    if (bytes > maxBytes) {
      return { code: 'too-large', message: `The message is over ${maxBytes} bytes as JSON.` };
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) deep = true;
    const isArray = Array.isArray(value);
    for (const [name, child] of Object.entries(value)) {
      const at = path ? `${path}.${name}` : name;
      if (!isArray && key === undefined && GATE_FORBIDDEN_KEYS.has(name)) key = at;
      // The key and its colon, and a comma (one too many per container: close enough).
      if (sized) bytes += (isArray ? 0 : Buffer.byteLength(JSON.stringify(name), 'utf8') + 1) + 1;
      stack.push({ value: child, path: at, depth: depth + 1 });
    }
    // Depth is reported before a key wherever each is: stop only once depth is known.
    if (deep && !sized) break;
  }
  if (deep) {
    return {
      code: 'too-deep',
      message: `The message is nested more than ${MAX_JSON_DEPTH} levels deep.`,
    };
  }
  if (key !== undefined) {
    return {
      code: 'forbidden-key',
      message: `${clip(key)}: "__proto__", "constructor" and "prototype" keys are not allowed.`,
    };
  }
  return undefined;
}

/** JSON bytes of a value itself: a primitive's text, or a container's two brackets. */
function ownBytes(value: unknown): number {
  if (value !== null && typeof value === 'object') return 2;
  if (typeof value === 'string') return Buffer.byteLength(JSON.stringify(value), 'utf8');
  return (JSON.stringify(value) ?? 'null').length;
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
