import type { Decision } from '../../core/runner.js';
import type { JsonValue } from '../../core/session.js';

type Json = JsonValue;

/**
 * The SDK has no "approve with edited arguments". Its RunState JSON holds each function call
 * (model output, generated items, the pending tool run) as an object with `callId` and a JSON
 * `arguments` string; rewriting every copy keeps them consistent, so the tool runs with the edit
 * and the history shows what actually ran.
 */
export function withEditedArguments(state: Json, decisions: readonly Decision[]): Json {
  const edits = new Map<string, string>();
  for (const decision of decisions) {
    if (decision.status === 'approved' && decision.arguments !== undefined) {
      edits.set(decision.id, JSON.stringify(decision.arguments));
    }
  }
  return edits.size === 0 ? state : rewrite(state, edits);
}

function rewrite(value: Json, edits: Map<string, string>): Json {
  if (Array.isArray(value)) return value.map((item) => rewrite(item, edits));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, Json> = {};
  for (const [key, child] of Object.entries(value)) out[key] = rewrite(child, edits);
  const callId = value.callId ?? value.call_id;
  if (typeof callId === 'string' && typeof value.arguments === 'string' && edits.has(callId)) {
    out.arguments = edits.get(callId) as string;
  }
  return out;
}
