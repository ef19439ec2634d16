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
