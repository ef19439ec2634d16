/**
 * A deep copy of a value loaded from a session: plain JSON (what every store holds) is copied by
 * hand, several times cheaper than `structuredClone`'s serialiser on the per-turn path; anything
 * else (a custom store's Date, Map, …) gets `structuredClone`, exactly as before.
 */
export function copyJson<T>(value: T): T {
  const copied = copyPlain(value, 0);
  return (copied === NOT_PLAIN ? structuredClone(value) : copied) as T;
}

const NOT_PLAIN = Symbol('not-plain');

function copyPlain(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' || typeof value === 'symbol' ? NOT_PLAIN : value;
  }
  if (depth > 64) return NOT_PLAIN;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = copyPlain(value[i], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // Assigning it would set the copy's prototype: the serialiser copies it as an own key.
    if (key === '__proto__') return NOT_PLAIN;
    const item = copyPlain((value as Record<string, unknown>)[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[key] = item;
  }
  return out;
}

/** Strings, finite numbers, booleans, null, arrays and plain objects of them, all the way down. */
export function isPlainJson(value: unknown, depth = 0): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth > 64) return false;
  if (Array.isArray(value)) return value.every((item) => isPlainJson(item, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in value) {
    if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
