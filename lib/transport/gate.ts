import { FORBIDDEN_KEYS } from '../core/forbidden-keys.js';
import type { TransportErrorCode } from './codes.js';
import { isSafeId } from './ids.js';
import type { ErrorMessage } from './protocol.js';
import { MAX_INBOUND_BYTES } from './sizing.js';

/**
 * The schema-free half of the input gate (parse.ts): size, UTF-8, JSON, object, depth, prototype
 * keys and action, and the `error` it answers. No zod, so a function that checks its one message
 * by hand (the fan-out: events-queue-check.ts) bundles none.
 */

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

export { MAX_INBOUND_BYTES };

/** Past this, a too-large message is not even parsed to find its requestId. */
const ECHO_PARSE_FACTOR = 4;
const MAX_ERROR_MESSAGE = 1_000;
const MAX_REPORTED_ISSUES = 3;
/** Deeper JSON is refused: later recursive checks (stores, hooks) would overflow the stack. */
export const MAX_JSON_DEPTH = 64;
/** Keys that reach an object's prototype when code assigns or merges them. */
export const GATE_FORBIDDEN_KEYS: ReadonlySet<string> = new Set([...FORBIDDEN_KEYS, 'prototype']);

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A value past the gate's checks (an object), or the gate's error. */
export type Gated =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; error: ParseResult<never> };

/** The checks before the schema, on raw text or bytes (parseMessage's first steps). */
export function gateRaw(
  raw: RawMessage,
  options: ParseOptions & { actions?: readonly string[] } = {},
): Gated {
  const maxBytes = options.maxBytes ?? MAX_INBOUND_BYTES;
  const bytes = byteLength(raw, maxBytes);
  if (bytes > maxBytes) {
    const text = bytes <= maxBytes * ECHO_PARSE_FACTOR ? decode(raw) : undefined;
    const echo = text === undefined ? undefined : tryParse(text);
    const message = `The message is ${bytes} bytes; the limit is ${maxBytes}.`;
    return { ok: false, error: fail('too-large', message, echo) };
  }
  const text = decode(raw);
  if (text === undefined) {
    return { ok: false, error: fail('invalid-utf8', 'The message is not valid UTF-8.') };
  }
  const value = tryParse(text);
  if (value === NOT_JSON) {
    return { ok: false, error: fail('bad-json', 'The message is not valid JSON.') };
  }
  return gateValue(value, options.actions, Number.POSITIVE_INFINITY);
}

/** The checks before the schema on a parsed value, its size measured as the JSON it would be. */
export function gateValue(
  value: unknown,
  actions: readonly string[] | undefined,
  maxBytes: number,
): Gated {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: fail('invalid-message', 'The message must be a JSON object.') };
  }
  const problem = inspect(value, maxBytes);
  if (problem !== undefined)
    return { ok: false, error: fail(problem.code, problem.message, value) };
  const record = value as Record<string, unknown>;
  if (actions !== undefined && !actions.includes(record.action as string)) {
    const action = record.action;
    const detail =
      action === undefined
        ? 'The message has no "action"'
        : typeof action === 'string'
          ? `Unknown action ${quote(clip(action))}`
          : 'The "action" must be a string';
    const message = `${detail}; expected one of ${actions.join(', ')}.`;
    return { ok: false, error: fail('unknown-action', message, value) };
  }
  return { ok: true, value: record };
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

export function fail(
  code: TransportErrorCode,
  message: string,
  value?: unknown,
): ParseResult<never> {
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
  return isSafeId(candidate) ? candidate : undefined;
}

/** The first issues, `; `-joined, and how many more there were. */
export function describeList<T>(issues: readonly T[], describe: (issue: T) => string): string {
  const lines = issues.slice(0, MAX_REPORTED_ISSUES).map(describe);
  const more = issues.length - MAX_REPORTED_ISSUES;
  return more > 0 ? `${lines.join('; ')} (and ${more} more)` : lines.join('; ');
}

/** `path: message`, e.g. `input.0.text: must not be empty`. */
export function issueLine(path: readonly PropertyKey[], text: string): string {
  const at = path.map((p) => clip(String(p))).join('.');
  const last = path.at(-1);
  let message = text;
  // Core schemas say "text must not be empty": the path already names the field.
  if (typeof last === 'string' && message.startsWith(`${last} `)) {
    message = message.slice(last.length + 1);
  }
  return at ? `${at}: ${message}` : message;
}

export function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

export function quote(text: string): string {
  return JSON.stringify(text);
}

/** Keys come from the sender: keep what we reflect short. */
export function clip(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}…` : text;
}

/** `"a"`, `"a" or "b"`, `one of "a", "b", "c"`. */
export function oneOf(values: readonly unknown[]): string {
  const quoted = values.map((v) => JSON.stringify(v));
  if (quoted.length <= 2) return quoted.join(' or ');
  return `one of ${quoted.join(', ')}`;
}
