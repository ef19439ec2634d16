import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { SessionCorrupt } from '../../core/errors.js';
import { lazySchema } from '../../core/lazy-schema.js';
import { bindingOf } from '../../core/ownership.js';
import type { JsonValue, SessionData } from '../../core/session.js';
import type { DynamoBase } from './base.js';
import {
  bindingTag,
  readSegments,
  type Segment,
  segmentBound,
  segmentId,
} from './session-segments.js';
import { keys } from './table.js';

/**
 * How a session splits into a small head and append-only logs (session-store.ts): every array
 * of at least `MIN_LOG` items reachable from a runner's slot through objects only (a chat
 * history, an event list) becomes a log, stored as the items each save appended; the rest of
 * the session (the skeleton, with those arrays left empty) stays in the head. Generic over the
 * runners' slots: no runner says what its history is. Below: the logs' reads and writes for
 * DynamoSessionStore (the turn items themselves are session-segments.ts).
 */

/** Arrays shorter than this stay in the head: small lists that change in place cost nothing. */
export const MIN_LOG = 4;
/** How deep under `state` arrays are looked for, and how many logs one session may have. */
const MAX_DEPTH = 4;
const MAX_LOGS = 32;

/** Where a log sits: the keys from `state` down to the array. */
export type LogPath = readonly string[];

export interface Log {
  path: LogPath;
  items: JsonValue[];
}

/** The logs of a session, keyed by `pathKey(path)`. */
export type Logs = Map<string, Log>;

export const pathKey = (path: LogPath): string => JSON.stringify(path);

/**
 * The arrays of `data` (a value the caller no longer touches: it is changed in place) that are
 * logs: those at `known` paths (logs already, whatever their length) and any new one long enough.
 * Each is replaced by `[]` in `data`, which becomes the skeleton.
 */
export function extractLogs(data: SessionData, known: ReadonlySet<string> = new Set()): Logs {
  const logs: Logs = new Map();
  const walk = (node: Record<string, JsonValue>, path: string[]) => {
    for (const [key, value] of Object.entries(node)) {
      const at = [...path, key];
      if (Array.isArray(value)) {
        const id = pathKey(at);
        if ((known.has(id) || value.length >= MIN_LOG) && logs.size < MAX_LOGS) {
          logs.set(id, { path: at, items: value });
          node[key] = [];
        }
      } else if (isObject(value) && at.length < MAX_DEPTH) {
        walk(value, at);
      }
    }
  };
  walk(data.state as Record<string, JsonValue>, []);
  return logs;
}

/** Puts the logs' items back into a skeleton (changed in place); false when a path is missing. */
export function restoreLogs(skeleton: SessionData, logs: Logs): boolean {
  for (const { path, items } of logs.values()) {
    let node: JsonValue | undefined = skeleton.state as JsonValue;
    for (const key of path.slice(0, -1)) {
      node = isObject(node) ? node[key] : undefined;
    }
    const last = path[path.length - 1];
    if (!isObject(node) || last === undefined || !Array.isArray(node[last])) return false;
    node[last] = items;
  }
  return true;
}

/**
 * What a save appends to each log when every old log is a prefix of the new one (undefined when
 * one is not: the save rewrites the logs). New logs append from nothing.
 */
export function appended(old: Logs, next: Logs): Map<string, JsonValue[]> | undefined {
  const tails = new Map<string, JsonValue[]>();
  for (const [id, log] of old) {
    const now = next.get(id);
    if (!now || now.items.length < log.items.length) return undefined;
    for (let i = 0; i < log.items.length; i++) {
      if (!jsonEqual(log.items[i] as JsonValue, now.items[i] as JsonValue)) return undefined;
    }
  }
  for (const [id, log] of next) {
    const from = old.get(id)?.items.length ?? 0;
    if (log.items.length > from) tails.set(id, log.items.slice(from));
  }
  return tails;
}

export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!jsonEqual(a[i] as JsonValue, b[i] as JsonValue)) return false;
    }
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key) || !jsonEqual(a[key] as JsonValue, b[key] as JsonValue)) {
      return false;
    }
  }
  return true;
}

function isObject(value: unknown): value is Record<string, JsonValue> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/*
 * The logs' reads and writes (the store's head names the generation and its last turn item).
 */

/** The head's `log` attribute: generation, last segment, segment count, expiry, log lengths. */
export const LogHeadSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    gen: z.string().check(z.minLength(1)),
    last: z.string(),
    segs: z.number().check(z.int(), z.nonnegative()),
    exp: z.number().check(z.int()),
    paths: z.record(z.string(), z.number().check(z.int(), z.nonnegative())),
  }),
);
export type LogHead = z.infer<typeof LogHeadSchema>;

/** What the store knows of the session a save builds on (its cached session: session-cache.ts). */
interface LogBase {
  readonly version: number;
  readonly gen?: string | undefined;
  readonly last: string;
  readonly segs: number;
  readonly exp: number;
  readonly data: SessionData;
  readonly logs: Logs;
}

/** Whether this save appends to the current log generation or starts a new one. */
export function planLog(
  base: LogBase | undefined,
  logs: Logs,
  version: number,
  data: SessionData,
  limits: { nowSeconds: number; ttlSeconds: number; maxSegments: number },
) {
  const { nowSeconds, ttlSeconds } = limits;
  const fresh = nowSeconds + 2 * ttlSeconds;
  const keep =
    base?.gen !== undefined &&
    // The same life exactly: a generation's turn items all carry one binding tag.
    bindingTag(bindingOf(data)) === bindingTag(bindingOf(base.data)) &&
    base.segs < limits.maxSegments &&
    base.exp > nowSeconds + ttlSeconds + 60;
  const tails = keep ? appended(base.logs, logs) : undefined;
  const content = tails ?? new Map([...logs].map(([id, l]) => [id, l.items]));
  const nonEmpty = [...content].filter(([, items]) => items.length > 0);
  const gen = tails && base?.gen ? base.gen : `${version}.${randomUUID().slice(0, 8)}`;
  const prev = tails && base ? base.last : '';
  const segment: Segment | undefined =
    nonEmpty.length === 0
      ? undefined
      : {
          id: segmentId(version),
          prev,
          content: Object.fromEntries(nonEmpty),
          // Turn items carry the life of the session they were written for (ownership.ts).
          binding: bindingOf(data),
        };
  return {
    gen,
    last: prev,
    segment,
    segs: (tails && base ? base.segs : 0) + (segment ? 1 : 0),
    exp: tails && base ? base.exp : fresh,
  };
}

/**
 * The logs of a head: from the cached session (`prior`) and only newer turn items when it is
 * one behind, else every turn item of the generation. Undefined: the head moved on meanwhile.
 */
export async function readLogs(
  store: DynamoBase,
  at: {
    sessionId: string;
    pk: string;
    log: LogHead;
    skeleton: SessionData;
    prior: LogBase | undefined;
  },
): Promise<Logs | undefined> {
  const { sessionId, pk, log, skeleton, prior } = at;
  const from = prior?.gen === log.gen && prior.version ? prior : undefined;
  let segments: Segment[] | undefined;
  try {
    if (from) {
      segments = await readSegments(store, pk, log.gen, log.last, {
        id: from.last,
        version: from.version,
      });
    }
    const incremental = segments !== undefined && from !== undefined;
    if (!incremental) segments = await readSegments(store, pk, log.gen, log.last);
    if (!segments) return undefined;
    const logs: Logs = new Map();
    if (incremental && from) {
      for (const [id, l] of from.logs) logs.set(id, { path: l.path, items: [...l.items] });
    }
    const count = (incremental && from ? from.segs : 0) + segments.length;
    if (count !== log.segs) return undefined;
    for (const segment of segments) {
      if (!segmentBound(segment.binding, bindingOf(skeleton))) {
        throw new SessionCorrupt(sessionId, 'a turn item belongs to another owner or life');
      }
      for (const [id, items] of Object.entries(segment.content)) {
        const entry = logs.get(id) ?? { path: JSON.parse(id) as string[], items: [] };
        entry.items.push(...items);
        logs.set(id, entry);
      }
    }
    checkLengths(logs, log);
    return structuredClone(logs);
  } catch (err) {
    if (err instanceof SessionCorrupt) throw err;
    throw new SessionCorrupt(sessionId, (err as Error).message);
  }
}

function checkLengths(logs: Logs, log: LogHead): void {
  for (const [id, l] of logs) {
    if (log.paths[id] !== l.items.length) throw new Error(`log ${id} has the wrong length`);
  }
  for (const [id, n] of Object.entries(log.paths)) {
    if (!logs.has(id)) logs.set(id, { path: JSON.parse(id) as string[], items: [] });
    if (n !== logs.get(id)?.items.length) throw new Error(`log ${id} is missing items`);
  }
}

/** Deletes a replaced generation's turn items, best effort (they carry a TTL). */
export async function dropLog(store: DynamoBase, pk: string, gen: string): Promise<void> {
  const items: { pk: string; sk: string }[] = [];
  for await (const item of store.queryPrefix(pk, keys.turnLog(gen), { projection: 'pk, sk' })) {
    items.push({ pk, sk: String(item.sk) });
  }
  await store.deleteQuietly(items);
}
