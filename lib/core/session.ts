import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { lazySchema } from './lazy-schema.js';

/** Any JSON value: what a runner may keep in a session. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

export const JsonValueSchema: z.ZodMiniType<JsonValue> = /* @__PURE__ */ lazySchema(() =>
  z.lazy(() =>
    z.union([
      z.string(),
      z.number(),
      z.boolean(),
      z.null(),
      z.array(JsonValueSchema),
      z.record(z.string(), JsonValueSchema),
    ]),
  ),
);

export const SESSION_SCHEMA_VERSION = 1;

/**
 * Stored state came out of JSON.parse, so it is JSON already; walking every history item again
 * with the recursive schema cost more than the rest of a turn. Runners check their own slot.
 */
const StoredJson = /* @__PURE__ */ lazySchema(() =>
  z.custom<JsonValue>((value) => value !== undefined),
);
const StoredJsonRecord = /* @__PURE__ */ lazySchema(() => z.record(z.string(), StoredJson));

/** Ids travel in DynamoDB keys and URLs: keep them to a safe alphabet. */
export const SessionIdSchema = /* @__PURE__ */ lazySchema(() =>
  z
    .string()
    .check(
      z.regex(
        /^[A-Za-z0-9._:-]{1,128}$/,
        'sessionId must be 1-128 characters of A-Z a-z 0-9 . _ : -',
      ),
    ),
);

/**
 * A session as stored: runner state keyed by runner name (each runner owns its slot), plus the
 * framework context shared with the agent. Everything is JSON and checked on load.
 */
export const SessionDataSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    schemaVersion: z.literal(SESSION_SCHEMA_VERSION),
    id: SessionIdSchema,
    /** Principal that created the session; later turns by someone else are refused by the edges. */
    owner: z.optional(z.string()),
    /**
     * This life of the session: a random id minted when it is created. Everything kept under the
     * session (run records, paused runs) carries it, and is read only while it matches, so after a
     * clear, an expiry or another claim of the id nothing of an earlier life is reachable.
     * Absent on sessions stored before it existed.
     */
    incarnation: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    /** Agent of the latest turn. */
    agent: z.optional(z.string()),
    state: StoredJsonRecord,
    context: StoredJsonRecord,
    turns: z.number().check(z.int(), z.nonnegative()),
    /** Runs paused for decisions: no new turn starts until they are resumed or expire. */
    paused: z.optional(
      z.array(z.strictObject({ runId: z.string(), expiresAt: z.number().check(z.int()) })),
    ),
    /**
     * The latest completed turn's reply, saved with it: a worker that died between the save and
     * the run record still answers the real reply (no request of its own on the normal path).
     */
    lastReply: z.optional(
      z.strictObject({ runId: z.string(), text: z.string(), output: z.optional(StoredJson) }),
    ),
    createdAt: z.number().check(z.int()),
    updatedAt: z.number().check(z.int()),
  }),
);
export type SessionData = z.infer<typeof SessionDataSchema>;

export interface StoredSession {
  data: SessionData;
  /** Opaque to callers: pass it back to `save` (0 means "not stored yet"). */
  version: number;
}

/**
 * Port implemented by lib/stores. `save` is conditional on the version that `load` returned and
 * throws `SessionConflict` when another writer got there first: never a silent overwrite.
 */
export interface SessionStore {
  load(sessionId: string): Promise<StoredSession | undefined>;
  /** Returns the new version. `expectedVersion` 0 creates the session and fails if it exists. */
  save(data: SessionData, expectedVersion: number): Promise<number>;
  delete(sessionId: string): Promise<void>;
}

/** A new session (a new life: a fresh `incarnation` unless the caller minted one). */
export function newSession(
  id: string,
  now: number,
  owner?: string,
  incarnation: string = randomUUID(),
): SessionData {
  return {
    schemaVersion: SESSION_SCHEMA_VERSION,
    id,
    ...(owner === undefined ? {} : { owner }),
    incarnation,
    state: {},
    context: {},
    turns: 0,
    createdAt: now,
    updatedAt: now,
  };
}
