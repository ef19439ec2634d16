import * as z from 'zod/mini';
import { findForbiddenKey } from './forbidden-keys.js';
import { lazySchema } from './lazy-schema.js';
import { InterruptionSchema } from './requests.js';
import { type JsonValue, SessionIdSchema } from './session.js';

// Zod-free in a module of their own (the fan-out's gate reads them); still exported from here.
export { FORBIDDEN_KEYS, findForbiddenKey } from './forbidden-keys.js';

export const PAUSED_RUN_SCHEMA_VERSION = 1;

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
    runId: z.string().check(z.minLength(1), z.maxLength(256)),
    sessionId: SessionIdSchema,
    /** The session's owner and incarnation when it paused (`ownership.ts`): read only while they match. */
    owner: z.optional(z.string()),
    incarnation: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    agent: z.string().check(z.minLength(1)),
    runner: z.string().check(z.minLength(1)),
    createdAt: z.number().check(z.int()),
    /** Epoch milliseconds; an expired run reads as absent. */
    expiresAt: z.number().check(z.int()),
    status: z.enum(['pending', 'resuming']),
    interruptions: z.array(z.extend(InterruptionSchema, { arguments: z.optional(SafeJsonSchema) })),
    state: SafeJsonSchema,
  }),
);
export type PausedRun = z.infer<typeof PausedRunSchema>;
