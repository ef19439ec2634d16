import { createHash } from 'node:crypto';
import type { JsonValue } from './session.js';
import { tryToolContext } from './tool-context.js';

/**
 * The journal key of a model request: sha256 of its JSON with object keys sorted, so the same
 * request (same history, same tool results) gives the same key on every attempt. Leave out what
 * changes between attempts without changing the request's meaning (ids of this attempt, clocks).
 */
export function modelRequestKey(request: unknown): string {
  const text = JSON.stringify(request, (_key, value: unknown) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort())
      sorted[key] = (value as Record<string, unknown>)[key];
    return sorted;
  });
  return createHash('sha256')
    .update(text ?? 'undefined')
    .digest('hex');
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
