import { createHash } from 'node:crypto';
import type { JsonValue } from './session.js';
import { tryToolContext } from './tool-context.js';

/** JSON with object keys sorted: the same value gives the same text (keys, hashes). */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
      return sorted;
    }) ?? 'undefined'
  );
}

/**
 * The journal key of a model request: sha256 of its canonical JSON, so the same request (same
 * history, same tool results) gives the same key on every attempt. Leave out what changes
 * between attempts without changing the request's meaning (ids of this attempt, clocks). A
 * `scope` (the framework's name) prefixes the key.
 */
export function modelRequestKey(request: unknown, scope?: string): string {
  const hash = createHash('sha256').update(canonicalJson(request)).digest('hex');
  return scope ? `${scope}:${hash}` : hash;
}

/** A value as JSON, as a journal entry holds it: dates become strings, functions vanish. */
export function asJson<T = JsonValue>(value: unknown): T {
  return JSON.parse(JSON.stringify(value ?? null)) as T;
}

/**
 * One model step under the run's journal (`ToolContext.journal`), for runners: the recorded
 * response to `request` on a replay, else `call()`'s, recorded when `record(response)` says a side
 * effect follows (tool calls) — before the runner acts on it. Without a journal: `call()`.
 */
export async function journaledModelStep<T extends JsonValue>(
  request: unknown,
  call: () => Promise<T>,
  record: (response: T) => boolean,
): Promise<T> {
  const journal = tryToolContext()?.journal;
  if (!journal) return call();
  const key = modelRequestKey(request);
  const recorded = journal.recordedModel(key);
  if (recorded !== undefined) return recorded as T;
  const response = await call();
  if (record(response)) await journal.recordModel(key, response);
  return response;
}
