import { FORBIDDEN_KEYS } from '../core/paused-run.js';

/**
 * JSON text in and out of stores, refusing `__proto__` and `constructor` keys. The cheap text
 * scan decides; only text that might hold such a key (or a `\u` escape, which could spell one)
 * pays for the exact check with a reviver. A key is a quoted name followed by `:`, so the word
 * as a value (LangChain's serialised messages are `"type":"constructor"`) stays on the fast path.
 */
const SUSPICIOUS = /"(?:__proto__|constructor)"\s*:|\\u/;

export class UnsafeJson extends Error {
  override name = 'UnsafeJson';
}

/** Parses stored text; throws SyntaxError (bad JSON) or UnsafeJson (forbidden key). */
export function parseStoredJson(text: string): unknown {
  if (!SUSPICIOUS.test(text)) return JSON.parse(text);
  return JSON.parse(text, (key, value) => {
    if (FORBIDDEN_KEYS.has(key)) throw new UnsafeJson(`forbidden key "${key}"`);
    return value;
  });
}

/** Serialises a value for storage; throws UnsafeJson when a forbidden key would be stored. */
export function toStoredJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new UnsafeJson('the value is not JSON');
  // Whatever we write must load again: check the way parseStoredJson will.
  if (SUSPICIOUS.test(text)) parseStoredJson(text);
  return text;
}

/** The message of a parse failure, for a corrupt-record error. */
export function jsonProblem(err: unknown): string {
  if (err instanceof UnsafeJson) return err.message;
  if (err instanceof SyntaxError) return `invalid JSON (${err.message})`;
  return err instanceof Error ? err.message : String(err);
}

/** What `copyStoredJson` returns for a value it leaves to the JSON round trip. */
export const NOT_PLAIN_JSON = Symbol('not-plain-json');

/**
 * The value `parseStoredJson(toStoredJson(value))` gives, built by hand for plain JSON (strings
 * are shared, not re-read from text), so an in-memory store skips the text round trip. Anything
 * the round trip would change or refuse (undefined, non-finite numbers, holes, class instances,
 * `toJSON`, a forbidden key, deep nesting) answers NOT_PLAIN_JSON: the caller takes the round trip.
 */
export function copyStoredJson(value: unknown): unknown {
  // An inherited `toJSON` would apply to every object: not looked up per object below.
  const proto = Object.prototype as { toJSON?: unknown };
  const array = Array.prototype as { toJSON?: unknown };
  if (proto.toJSON !== undefined || array.toJSON !== undefined) return NOT_PLAIN_JSON;
  return copyPlain(value, 0);
}

function copyPlain(value: unknown, depth: number): unknown {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  // JSON writes -0 as 0.
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : NOT_PLAIN_JSON;
  if (typeof value !== 'object' || depth > 64) return NOT_PLAIN_JSON;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      // A hole or undefined becomes null in JSON: left to the round trip.
      const item = value[i] === undefined ? NOT_PLAIN_JSON : copyPlain(value[i], depth + 1);
      if (item === NOT_PLAIN_JSON) return NOT_PLAIN_JSON;
      out[i] = item;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN_JSON;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // FORBIDDEN_KEYS, spelled out: a Set lookup per key cost more than the copy.
    if (key === '__proto__' || key === 'constructor') return NOT_PLAIN_JSON;
    const item = copyPlain((value as Record<string, unknown>)[key], depth + 1);
    if (item === NOT_PLAIN_JSON) return NOT_PLAIN_JSON;
    out[key] = item;
  }
  return out;
}
