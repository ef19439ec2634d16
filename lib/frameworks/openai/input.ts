import type { AgentInputItem } from '@openai/agents';
import * as z from 'zod';
import { SessionCorrupt } from '../../core/errors.js';
import type { Request } from '../../core/requests.js';
import type { JsonValue } from '../../core/session.js';

/** This runner's slot of the session: the SDK's own history items, as JSON. */
const OpenAIStateSchema = z.object({
  schemaVersion: z.literal(1),
  // Items are the SDK's own; it validates them itself, so only their outer shape is checked.
  history: z.array(
    z.custom<Record<string, unknown>>(
      (item) => typeof item === 'object' && item !== null && !Array.isArray(item),
    ),
  ),
});

export interface OpenAIState {
  schemaVersion: 1;
  history: AgentInputItem[];
}

export function loadState(sessionId: string, state: JsonValue | undefined): AgentInputItem[] {
  if (state === undefined) return [];
  // The schema's check by hand (the usual case): it ran on every turn.
  if (isStateShape(state)) return state.history as unknown as AgentInputItem[];
  const parsed = OpenAIStateSchema.safeParse(state);
  if (!parsed.success) {
    throw new SessionCorrupt(sessionId, `openai state: ${parsed.error.issues[0]?.message}`);
  }
  return parsed.data.history as unknown as AgentInputItem[];
}

function isStateShape(state: JsonValue): state is { schemaVersion: 1; history: JsonValue[] } {
  if (state === null || typeof state !== 'object' || Array.isArray(state)) return false;
  const { history } = state;
  if (state.schemaVersion !== 1 || !Array.isArray(history)) return false;
  for (const item of history) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return false;
  }
  return true;
}

export function toState(history: AgentInputItem[]): JsonValue {
  // The store serialises to JSON; the SDK's history items are plain JSON data already.
  return { schemaVersion: 1, history } as unknown as JsonValue;
}

/** All requests of a turn become one user message; text alone stays a plain string. */
export function toUserItem(requests: readonly Request[]): AgentInputItem {
  const only = requests[0];
  if (requests.length === 1 && only?.type === 'text') {
    return { role: 'user', content: only.text };
  }
  const content = requests.map((request) => {
    if (request.type === 'text') return { type: 'input_text' as const, text: request.text };
    if (request.type === 'image') {
      return {
        type: 'input_image' as const,
        image: 'url' in request ? request.url : `data:${request.mimeType};base64,${request.data}`,
      };
    }
    return 'url' in request
      ? { type: 'input_file' as const, file: { url: request.url }, filename: request.name }
      : {
          type: 'input_file' as const,
          file: `data:${request.mimeType};base64,${request.data}`,
          filename: request.name,
        };
  });
  return { role: 'user', content } as AgentInputItem;
}
