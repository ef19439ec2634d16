/** Keys that could reach an object's prototype if stored JSON were ever merged into objects. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor']);

/** The path of the first forbidden key in a JSON value, or undefined when there is none. */
export function findForbiddenKey(value: unknown, path = ''): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (FORBIDDEN_KEYS.has(key)) return at;
    const found = findForbiddenKey(child, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
