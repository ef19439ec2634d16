import * as z from 'zod';
import { SessionCorrupt } from '../../core/errors.js';
import type { Request } from '../../core/requests.js';
import type { JsonValue } from '../../core/session.js';

// Messages are Mastra's own stored form (MastraDBMessage, what its memory keeps in a thread);
// Mastra validates them itself, so only their outer shape is checked here.
const MessageSchema = z.custom<Record<string, unknown>>(
  (m) => typeof m === 'object' && m !== null && !Array.isArray(m) && 'role' in m,
);

/** This runner's slot of the session: the thread's messages. */
const HistorySchema = z.object({ schemaVersion: z.literal(1), messages: z.array(MessageSchema) });

/** A workflow snapshot as Mastra's storage keeps it, under its workflow's name. */
const SnapshotSchema = z.object({
  workflowName: z.string().min(1),
  snapshot: z.record(z.string(), z.unknown()),
});

/**
 * A suspended run: Mastra's run id and the workflow snapshots it resumes from (its agentic loop
 * suspends at the approval gate), what each held call is for, and the history before the turn.
 */
const PausedSchema = z.object({
  schemaVersion: z.literal(1),
  mastraRunId: z.string().min(1),
  history: z.array(MessageSchema),
  snapshots: z.array(SnapshotSchema).min(1),
  approvals: z.array(
    z.object({
      toolCallId: z.string(),
      toolName: z.string(),
      args: z.unknown(),
      suspended: z.object({ payload: z.unknown() }).optional(),
    }),
  ),
});

export type StoredMessage = Record<string, unknown>;
export type StoredSnapshot = z.infer<typeof SnapshotSchema>;
export type PausedRun = z.infer<typeof PausedSchema>;

export function loadHistory(sessionId: string, state: JsonValue | undefined): StoredMessage[] {
  if (state === undefined) return [];
  const parsed = HistorySchema.safeParse(state);
  if (!parsed.success) {
    throw new SessionCorrupt(sessionId, `mastra state: ${parsed.error.issues[0]?.message}`);
  }
  return parsed.data.messages;
}

export function toHistory(messages: readonly unknown[]): JsonValue {
  return { schemaVersion: 1, messages: toJson(messages) } as JsonValue;
}

export function toPaused(run: Omit<PausedRun, 'schemaVersion'>): JsonValue {
  return toJson({ schemaVersion: 1, ...run }) as JsonValue;
}

export function loadPaused(sessionId: string, paused: JsonValue): PausedRun {
  const parsed = PausedSchema.safeParse(paused);
  if (!parsed.success) {
    throw new SessionCorrupt(sessionId, `mastra paused run: ${parsed.error.issues[0]?.message}`);
  }
  return parsed.data;
}

/** All requests of a turn become one user message (the AI SDK message form Mastra takes). */
export function toUserMessage(requests: readonly Request[]): Record<string, unknown> {
  const only = requests[0];
  if (requests.length === 1 && only?.type === 'text') return { role: 'user', content: only.text };
  const content = requests.map((request) => {
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
          ...(request.name ? { filename: request.name } : {}),
        }
      : {
          type: 'file',
          data: request.data,
          mediaType: request.mimeType,
          ...(request.name ? { filename: request.name } : {}),
        };
  });
  return { role: 'user', content };
}

function toJson<T>(value: T): unknown {
  // Dates become ISO strings and URLs strings; Mastra reads both back.
  return JSON.parse(JSON.stringify(value));
}
