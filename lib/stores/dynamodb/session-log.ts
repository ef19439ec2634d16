import type { JsonValue, SessionData } from '../../core/session.js';

/**
 * How a session splits into a small head and append-only logs (session-store.ts): every array
 * of at least `MIN_LOG` items reachable from a runner's slot through objects only (a chat
 * history, an event list) becomes a log, stored as the items each save appended; the rest of
 * the session (the skeleton, with those arrays left empty) stays in the head. Generic over the
 * runners' slots: no runner says what its history is.
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
