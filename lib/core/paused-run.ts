import * as z from 'zod';
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
