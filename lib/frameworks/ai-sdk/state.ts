import type { ModelMessage, UserContent } from 'ai';
import * as z from 'zod';
import { SessionCorrupt } from '../../core/errors.js';
import { isPlainJson } from '../../core/json-copy.js';
import type { Request } from '../../core/requests.js';
import type { Decision } from '../../core/runner.js';
import type { JsonValue } from '../../core/session.js';
import { gateDecision } from '../../tools/guard.js';

// Messages are the SDK's own ModelMessage[]; the SDK validates them itself, so only their
// outer shape is checked here.
const MessageSchema = z.custom<Record<string, unknown>>(
  (m) => typeof m === 'object' && m !== null && !Array.isArray(m) && 'role' in m,
);

/** This runner's slot of the session: the conversation as the SDK's ModelMessage[]. */
const HistorySchema = z.object({ schemaVersion: z.literal(1), messages: z.array(MessageSchema) });

/** A paused run: the messages up to the approval requests, and what each request is for. */
const PausedSchema = z.object({
  schemaVersion: z.literal(1),
  messages: z.array(MessageSchema),
  approvals: z.array(
    z.object({
      approvalId: z.string(),
      toolCallId: z.string(),
      toolName: z.string(),
      input: z.unknown(),
    }),
  ),
});

export type PendingApproval = z.infer<typeof PausedSchema>['approvals'][number];

export function loadHistory(sessionId: string, state: JsonValue | undefined): ModelMessage[] {
  if (state === undefined) return [];
  // The schema's check by hand (the usual case): it ran on every turn.
  if (isHistoryShape(state)) return state.messages as unknown as ModelMessage[];
  const parsed = HistorySchema.safeParse(state);
  if (!parsed.success) {
    throw new SessionCorrupt(sessionId, `ai-sdk state: ${parsed.error.issues[0]?.message}`);
  }
  return parsed.data.messages as unknown as ModelMessage[];
}

function isHistoryShape(state: JsonValue): state is { schemaVersion: 1; messages: JsonValue[] } {
  if (state === null || typeof state !== 'object' || Array.isArray(state)) return false;
  const { messages } = state;
  if (state.schemaVersion !== 1 || !Array.isArray(messages)) return false;
  return messages.every(
    (m) => typeof m === 'object' && m !== null && !Array.isArray(m) && 'role' in m,
  );
}

/**
 * Messages hold only JSON (dates and bytes are not produced for text and tool parts). The first
 * `loaded` came from the session, JSON already: only the turn's new messages are checked.
 */
export function toHistory(messages: readonly ModelMessage[], loaded = 0): JsonValue {
  const fresh = loaded > 0 ? messages.slice(loaded) : messages;
  const json = toJson(fresh) as unknown[];
  // Plain JSON comes back as it was: the whole list is kept as it is.
  const all = json === fresh ? messages : [...messages.slice(0, loaded), ...json];
  return { schemaVersion: 1, messages: all } as JsonValue;
}

export function toPaused(
  messages: readonly ModelMessage[],
  approvals: PendingApproval[],
): JsonValue {
  return {
    schemaVersion: 1,
    messages: toJson(messages),
    approvals: toJson(approvals),
  } as JsonValue;
}

/**
 * The messages a resumed run starts from: the paused ones, edited arguments written into their
 * tool-call parts (the SDK runs an approved call with the input in history), and one tool
 * message answering every approval request.
 */
export function resumeMessages(
  sessionId: string,
  paused: JsonValue,
  decisions: readonly Decision[],
): { messages: ModelMessage[]; approvals: PendingApproval[] } {
  const parsed = PausedSchema.safeParse(paused);
  if (!parsed.success) {
    throw new SessionCorrupt(sessionId, `ai-sdk paused run: ${parsed.error.issues[0]?.message}`);
  }
  const { approvals } = parsed.data;

  const messages = (parsed.data.messages as unknown as ModelMessage[]).map((message) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return message;
    const content = message.content.map((part) => {
      const edit = part.type === 'tool-call' ? gateDecision(decisions, part.toolCallId) : undefined;
      return edit?.status === 'approved' && edit.arguments !== undefined
        ? { ...part, input: edit.arguments }
        : part;
    });
    return { ...message, content };
  });
  const responses = approvals.map((approval) => {
    const decision = gateDecision(decisions, approval.toolCallId);
    return {
      type: 'tool-approval-response' as const,
      approvalId: approval.approvalId,
      approved: decision?.status === 'approved',
      ...(decision?.message ? { reason: decision.message } : {}),
    };
  });
  messages.push({ role: 'tool', content: responses });
  return { messages, approvals };
}

/** All requests of a turn become one user message; text alone stays a plain string. */
export function toUserMessage(requests: readonly Request[]): ModelMessage {
  const only = requests[0];
  if (requests.length === 1 && only?.type === 'text') return { role: 'user', content: only.text };
  const content: UserContent = requests.map((request) => {
    if (request.type === 'text') return { type: 'text', text: request.text };
    if (request.type === 'image') {
      return 'url' in request
        ? { type: 'image', image: new URL(request.url) }
        : { type: 'image', image: request.data, mediaType: request.mimeType };
    }
    return 'url' in request
      ? {
          type: 'file',
          data: new URL(request.url),
          mediaType: 'application/octet-stream',
          filename: request.name,
        }
      : { type: 'file', data: request.data, mediaType: request.mimeType, filename: request.name };
  });
  return { role: 'user', content };
}

function toJson<T>(value: T): unknown {
  // Plain JSON already (a text turn): kept as it is, no serialising round trip per turn.
  if (isPlainJson(value)) return value;
  // URL objects (image/file by URL) become strings; the SDK accepts URL strings back.
  return JSON.parse(JSON.stringify(value));
}
