import * as z from 'zod';
import { lazySchema } from './lazy-schema.js';
import { InterruptionSchema } from './requests.js';
import { type JsonValue, SessionIdSchema } from './session.js';

export const PAUSED_RUN_SCHEMA_VERSION = 1;

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

/** JSON with no prototype keys: what stores accept and return for framework state. */
export const SafeJsonSchema = /* @__PURE__ */ lazySchema(() =>
  z.custom<JsonValue>((value) => value !== undefined && findForbiddenKey(value) === undefined, {
    message: 'must be JSON without "__proto__" or "constructor" keys',
  }),
);

/**
 * A run waiting for decisions (tool approvals, input). `state` is the framework's own serialised
 * run state, never code. `status` moves `pending` → `resuming` through the store's conditional
 * claim, so one resume proceeds and a second is refused.
 */
export const PausedRunSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    schemaVersion: z.literal(PAUSED_RUN_SCHEMA_VERSION),
    runId: z.string().min(1).max(256),
    sessionId: SessionIdSchema,
    /** The session's owner and incarnation when it paused (`ownership.ts`): read only while they match. */
    owner: z.string().optional(),
    incarnation: z.string().min(1).max(64).optional(),
    agent: z.string().min(1),
    runner: z.string().min(1),
    createdAt: z.number().int(),
    /** Epoch milliseconds; an expired run reads as absent. */
    expiresAt: z.number().int(),
    status: z.enum(['pending', 'resuming']),
    interruptions: z.array(InterruptionSchema.extend({ arguments: SafeJsonSchema.optional() })),
    state: SafeJsonSchema,
  }),
);
export type PausedRun = z.infer<typeof PausedRunSchema>;
