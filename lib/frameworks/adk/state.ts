import {
  BaseSessionService,
  type CreateSessionRequest,
  createSession,
  type Event,
  type GetSessionRequest,
  type ListSessionsResponse,
  type LlmResponse,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  type Session,
} from '@google/adk';
import * as z from 'zod';
import { SessionCorrupt } from '../../core/errors.js';
import type { Request } from '../../core/requests.js';
import type { Decision } from '../../core/runner.js';
import type { JsonValue } from '../../core/session.js';
import { gateDecision } from '../../tools/guard.js';

// Events are ADK's own; ADK reads them itself, so only their outer shape is checked here.
const EventSchema = z.custom<Record<string, unknown>>(
  (e) => typeof e === 'object' && e !== null && !Array.isArray(e) && 'invocationId' in e,
);

/** This runner's slot of the session: ADK's session (its state and events) as JSON. */
const SlotSchema = z.object({
  schemaVersion: z.literal(1),
  state: z.record(z.string(), z.unknown()),
  events: z.array(EventSchema),
});

const ConfirmationSchema = z.object({
  /** The id of ADK's `adk_request_confirmation` call, answered on resume. */
  confirmationId: z.string(),
  /** The model's call that waits for the confirmation. */
  callId: z.string(),
  toolName: z.string(),
  args: z.record(z.string(), z.unknown()),
});

/** A paused run: ADK's session up to its confirmation requests, and what each one gates. */
const PausedSchema = SlotSchema.extend({ confirmations: z.array(ConfirmationSchema) });

type Content = NonNullable<LlmResponse['content']>;

export type PendingConfirmation = z.infer<typeof ConfirmationSchema>;
export type SessionSlot = z.infer<typeof SlotSchema>;

/**
 * ADK's `BaseSessionService` over one session of ours: seeded from the runner's slot, appended
 * to by ADK during the turn, and written back into the slot when the turn succeeds (so on AWS it
 * lives in the session table, with the rest of the session). One service per turn.
 */
export class SlotSessionService extends BaseSessionService {
  #session: Session | undefined;
  readonly #seed: { state: Record<string, unknown>; events: Event[] };

  constructor(seed: { state: Record<string, unknown>; events: readonly unknown[] }) {
    super();
    this.#seed = { state: { ...seed.state }, events: [...seed.events] as Event[] };
  }

  async createSession(request: CreateSessionRequest): Promise<Session> {
    this.#session = createSession({
      id: request.sessionId ?? 'session',
      appName: request.appName,
      userId: request.userId,
      state: { ...this.#seed.state, ...request.state },
      events: [...this.#seed.events],
      lastUpdateTime: Date.now(),
    });
    return this.#session;
  }

  async getSession(request: GetSessionRequest): Promise<Session | undefined> {
    const session = this.#session;
    if (!session || session.id !== request.sessionId) return undefined;
    return session;
  }

  async listSessions(): Promise<ListSessionsResponse> {
    const sessions = this.#session ? [this.#session] : [];
    return {
      sessions,
      page: 1,
      limit: sessions.length,
      totalItems: sessions.length,
      totalPages: 1,
    };
  }

  async deleteSession(): Promise<void> {
    this.#session = undefined;
  }

  /** The session as the slot keeps it (JSON: events hold no class instances that matter). */
  snapshot(): SessionSlot {
    const session = this.#session;
    return toJson({
      schemaVersion: 1,
      state: session?.state ?? this.#seed.state,
      events: session?.events ?? this.#seed.events,
    }) as SessionSlot;
  }
}

export function loadSlot(sessionId: string, state: JsonValue | undefined): SessionSlot {
  if (state === undefined) return { schemaVersion: 1, state: {}, events: [] };
  const parsed = SlotSchema.safeParse(state);
  if (!parsed.success) {
    throw new SessionCorrupt(sessionId, `adk state: ${parsed.error.issues[0]?.message}`);
  }
  return parsed.data;
}

export function toPaused(slot: SessionSlot, confirmations: PendingConfirmation[]): JsonValue {
  return toJson({ ...slot, confirmations }) as JsonValue;
}

/**
 * What a resumed run starts from: the paused session with edited arguments written into both
 * copies of the call (the model's call and the one pinned in ADK's confirmation request, which
 * ADK compares), and the user's answer to every confirmation request.
 */
export function resumeFrom(
  sessionId: string,
  paused: JsonValue,
  decisions: readonly Decision[],
): { slot: SessionSlot; message: Content } {
  const parsed = PausedSchema.safeParse(paused);
  if (!parsed.success) {
    throw new SessionCorrupt(sessionId, `adk paused run: ${parsed.error.issues[0]?.message}`);
  }
  const { confirmations, ...slot } = parsed.data;
  const edits = new Map<string, Record<string, unknown>>();
  for (const confirmation of confirmations) {
    const decision = gateDecision(decisions, confirmation.callId);
    if (decision?.status === 'approved' && isRecord(decision.arguments)) {
      edits.set(confirmation.callId, decision.arguments);
    }
  }
  const events = edits.size ? slot.events.map((event) => withEdits(event, edits)) : slot.events;
  const parts = confirmations.map((confirmation) => {
    const decision = gateDecision(decisions, confirmation.callId);
    return {
      functionResponse: {
        id: confirmation.confirmationId,
        name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
        response: {
          confirmed: decision?.status === 'approved',
          ...(decision?.message ? { hint: decision.message } : {}),
        },
      },
    };
  });
  return { slot: { ...slot, events }, message: { role: 'user', parts } };
}

function withEdits(
  event: Record<string, unknown>,
  edits: Map<string, Record<string, unknown>>,
): Record<string, unknown> {
  const content = event.content as { parts?: Record<string, unknown>[] } | undefined;
  if (!content?.parts) return event;
  const parts = content.parts.map((part) => {
    const call = part.functionCall as
      | { id?: string; name?: string; args?: Record<string, unknown> }
      | undefined;
    if (!call) return part;
    const edit = call.id ? edits.get(call.id) : undefined;
    if (edit) return { ...part, functionCall: { ...call, args: edit } };
    const pinned = call.args?.originalFunctionCall as { id?: string } | undefined;
    const pinnedEdit = pinned?.id ? edits.get(pinned.id) : undefined;
    if (call.name !== REQUEST_CONFIRMATION_FUNCTION_CALL_NAME || !pinnedEdit) return part;
    const args = { ...call.args, originalFunctionCall: { ...pinned, args: pinnedEdit } };
    return { ...part, functionCall: { ...call, args } };
  });
  return { ...event, content: { ...content, parts } };
}

/** All requests of a turn become one user `Content` (text, inline data, file URIs). */
export function toUserContent(requests: readonly Request[]): Content {
  const parts = requests.map((request) => {
    if (request.type === 'text') return { text: request.text };
    if ('url' in request) return { fileData: { fileUri: request.url, mimeType: mimeOf(request) } };
    return { inlineData: { data: request.data, mimeType: request.mimeType } };
  });
  return { role: 'user', parts };
}

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  txt: 'text/plain',
};

/** Gemini wants a file's MIME type: from the URL's extension, else a generic one. */
function mimeOf(request: { type: 'image' | 'file'; url: string }): string {
  const extension = new URL(request.url).pathname.split('.').at(-1)?.toLowerCase() ?? '';
  const known = MIME_BY_EXTENSION[extension];
  if (known) return known;
  return request.type === 'image' ? 'image/png' : 'application/octet-stream';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
