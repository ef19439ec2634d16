import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/**
 * zod's classic API registers English messages on its first schema; zod/mini registers none, so
 * a bundle with mini schemas alone (ws-message) would say "Invalid input" where the others say
 * what was expected. Set only when no locale is, as classic does: a caller's own locale wins.
 */
function englishByDefault(): void {
  if (!z.config().localeError) z.config(en());
}

/**
 * A schema built on first use. Building zod schemas is most of what a small function does at
 * import (a CPU profile of the fan-out's cold import put zod first): wrapped in `lazySchema`,
 * a module's schemas cost nothing until a message is checked, and a module nothing reads from is
 * dropped from the bundle (call sites mark the call `/* @__PURE__ *\/`).
 *
 * The value stands in for the schema itself — same type, same methods, usable inside other
 * schemas — by forwarding every operation to the schema, built once.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const real = (): T => {
    if (built === undefined) {
      englishByDefault();
      built = build();
    }
    return built;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    set: (_, key, value) => Reflect.set(real(), key, value),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    // A proxy may report a property its own (empty) target lacks only as configurable.
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      return descriptor ? { ...descriptor, configurable: true } : undefined;
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
