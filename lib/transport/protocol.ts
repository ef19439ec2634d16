import * as z from 'zod/mini';
import { AgentNameSchema } from '../core/agent.js';
import { StreamEventSchema } from '../core/events.js';
import { lazySchema } from '../core/lazy-schema.js';
import { InterruptionSchema, RequestSchema } from '../core/requests.js';
import { DecisionsSchema } from '../core/resume.js';
import { SessionIdSchema } from '../core/session.js';
import { SubscriptionFormatSchema } from './formats.js';
import { isPrincipal, PRINCIPAL_RULE, SAFE_ID } from './ids.js';
import { jsonBytes, TOO_LARGE_ISSUE } from './sizing.js';

/**
 * The wire protocol (docs/protocol.md): every message that crosses the WebSocket, the queues,
 * the HTTP API or a Lambda invoke. All objects are strict, so a misspelt field is an error
 * rather than silently ignored.
 */

export { MAX_INBOUND_BYTES } from './sizing.js';
/** A run's input, as JSON, leaves room for the envelope inside one frame. */
export const MAX_INPUT_BYTES = 96 * 1024;
export const MAX_REQUESTS = 100;
export const MAX_DECISIONS = 100;

/** Chosen by the client; echoed in `accepted` and `error`, and the run queue's dedup id. */
export const RequestIdSchema = /* @__PURE__ */ lazySchema(() =>
  z.string().check(z.regex(SAFE_ID, 'requestId must be 1-128 characters of A-Z a-z 0-9 . _ : -')),
);
/** Run ids travel in URLs and table keys like session ids. */
export const RunIdSchema = /* @__PURE__ */ lazySchema(() =>
  z.string().check(z.regex(SAFE_ID, 'runId must be 1-128 characters of A-Z a-z 0-9 . _ : -')),
);
export const ConnectionIdSchema = /* @__PURE__ */ lazySchema(() =>
  z.string().check(z.minLength(1), z.maxLength(256)),
);
export const PrincipalSchema = /* @__PURE__ */ lazySchema(() =>
  z.string().check(z.refine(isPrincipal, `principal must be ${PRINCIPAL_RULE}`)),
);
export const SeqSchema = /* @__PURE__ */ lazySchema(() =>
  z.number().check(z.int(), z.nonnegative()),
);
/** Epoch milliseconds. */
export const TimestampSchema = /* @__PURE__ */ lazySchema(() =>
  z.number().check(z.int(), z.nonnegative()),
);

/** A string is one text request; a list is sent as it is. Bounded so a frame stays small. */
export const RunInputSchema = /* @__PURE__ */ lazySchema(() =>
  z
    .union(
      [
        z.string().check(z.minLength(1, 'must not be empty')),
        z
          .array(RequestSchema)
          .check(
            z.minLength(1, 'at least one request is needed'),
            z.maxLength(MAX_REQUESTS, `at most ${MAX_REQUESTS} requests are allowed`),
          ),
      ],
      { error: 'must be a string or a list of requests' },
    )
    .check((ctx) => {
      const bytes = jsonBytes(ctx.value);
      if (bytes > MAX_INPUT_BYTES) {
        ctx.issues.push({
          code: 'custom',
          input: ctx.value,
          message: `must be at most ${MAX_INPUT_BYTES} bytes of JSON (got ${bytes})`,
          params: TOO_LARGE_ISSUE,
        });
      }
    }),
);
export type RunInputWire = z.infer<typeof RunInputSchema>;

export const WireDecisionsSchema = /* @__PURE__ */ lazySchema(() =>
  DecisionsSchema.check(
    z.maxLength(MAX_DECISIONS, `at most ${MAX_DECISIONS} decisions are allowed`),
  ),
);

// ---------------------------------------------------------------- WebSocket, client → server

export const RunMessageSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    action: z.literal('run'),
    requestId: RequestIdSchema,
    agent: AgentNameSchema,
    sessionId: z.optional(SessionIdSchema),
    input: RunInputSchema,
  }),
);

export const ResumeMessageSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    action: z.literal('resume'),
    requestId: RequestIdSchema,
    sessionId: SessionIdSchema,
    runId: RunIdSchema,
    decisions: WireDecisionsSchema,
  }),
);

// requestId is optional here: it only lets a client match an `error` to its subscribe.
// With runId: the run's stored messages after `afterSeq` (absent: from seq 0) are sent first
// (reconnect); the live ones follow as for any subscriber (docs/protocol.md, "Reconnect").
export const SubscribeMessageSchema = /* @__PURE__ */ lazySchema(() =>
  z
    .strictObject({
      action: z.literal('subscribe'),
      requestId: z.optional(RequestIdSchema),
      sessionId: SessionIdSchema,
      format: z.optional(SubscriptionFormatSchema),
      runId: z.optional(RunIdSchema),
      afterSeq: z.optional(SeqSchema),
    })
    .check((ctx) => {
      if (ctx.value.afterSeq !== undefined && ctx.value.runId === undefined) {
        ctx.issues.push({
          code: 'custom',
          input: ctx.value,
          path: ['runId'],
          message: 'is required with afterSeq (the run whose seqs they are)',
        });
      }
    }),
);

export const UnsubscribeMessageSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    action: z.literal('unsubscribe'),
    requestId: z.optional(RequestIdSchema),
    sessionId: SessionIdSchema,
  }),
);

/** Forgets the session, in its queue order: runs sent after it start a new conversation. */
export const ClearMessageSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    action: z.literal('clear'),
    requestId: RequestIdSchema,
    sessionId: SessionIdSchema,
  }),
);

export const ClientMessageSchema = /* @__PURE__ */ lazySchema(() =>
  z.discriminatedUnion('action', [
    RunMessageSchema,
    ResumeMessageSchema,
    SubscribeMessageSchema,
    UnsubscribeMessageSchema,
    ClearMessageSchema,
  ]),
);

export const CLIENT_ACTIONS = ['run', 'resume', 'subscribe', 'unsubscribe', 'clear'] as const;

export type RunMessage = z.infer<typeof RunMessageSchema>;
export type ResumeMessage = z.infer<typeof ResumeMessageSchema>;
export type SubscribeMessage = z.infer<typeof SubscribeMessageSchema>;
export type UnsubscribeMessage = z.infer<typeof UnsubscribeMessageSchema>;
export type ClientMessage = z.infer<typeof ClientMessageSchema>;
export type ClientAction = ClientMessage['action'];

// ---------------------------------------------------------------- WebSocket, server → client

export const AcceptedMessageSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    type: z.literal('accepted'),
    requestId: RequestIdSchema,
    sessionId: SessionIdSchema,
    runId: RunIdSchema,
  }),
);

/** One batch of a run's events; `seq` counts the run's messages from 0 without gaps. */
export const EventsMessageSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    type: z.literal('events'),
    sessionId: SessionIdSchema,
    runId: RunIdSchema,
    seq: SeqSchema,
    /** A void marker: closes the seqs `from…seq` (docs/protocol.md "Void markers"). */
    from: z.optional(SeqSchema),
    events: z.array(StreamEventSchema).check(z.minLength(1)),
  }),
);

export const ErrorMessageSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    type: z.literal('error'),
    requestId: z.optional(RequestIdSchema),
    /** Stable and kebab-case: see ERROR_CODES. */
    code: z.string().check(z.minLength(1)),
    message: z.string(),
    /** Seconds to wait before trying again (`quota-exceeded`). */
    retryAfter: z.optional(z.number().check(z.int(), z.positive())),
  }),
);

export const ServerMessageSchema = /* @__PURE__ */ lazySchema(() =>
  z.discriminatedUnion('type', [AcceptedMessageSchema, EventsMessageSchema, ErrorMessageSchema]),
);

export type AcceptedMessage = z.infer<typeof AcceptedMessageSchema>;
export type EventsMessage = z.infer<typeof EventsMessageSchema>;
export type ErrorMessage = z.infer<typeof ErrorMessageSchema>;
export type ServerMessage = z.infer<typeof ServerMessageSchema>;

// ---------------------------------------------------------------- SQS

const jobBase = () => ({
  requestId: RequestIdSchema,
  /** Who asked, as the edge authenticated them (lib/app fixed the session's owner first). */
  principal: PrincipalSchema,
  sessionId: SessionIdSchema,
  runId: RunIdSchema,
  /** The WebSocket connection that sent the request, to subscribe it and answer errors. */
  connectionId: z.optional(ConnectionIdSchema),
  enqueuedAt: TimestampSchema,
});

/** Run queue (FIFO): group = sessionId so a session's turns run one at a time. */
export const RunJobSchema = /* @__PURE__ */ lazySchema(() =>
  z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('run'),
      ...jobBase(),
      agent: AgentNameSchema,
      input: RunInputSchema,
    }),
    z.strictObject({
      kind: z.literal('resume'),
      ...jobBase(),
      /** Informational: the paused run record names the agent. */
      agent: z.optional(AgentNameSchema),
      decisions: WireDecisionsSchema,
    }),
    // In the session's FIFO group, so it never lands in the middle of a turn.
    z.strictObject({ kind: z.literal('clear'), ...jobBase() }),
  ]),
);
export type RunJob = z.infer<typeof RunJobSchema>;
export type TurnJob = Exclude<RunJob, { kind: 'clear' }>;

/** Events queue (FIFO, group = sessionId): a worker's batch on its way to the fan-out. */
export const EventsQueueMessageSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    message: EventsMessageSchema,
    /** Also deliver to this connection (the requester), subscribed or not. */
    connectionId: z.optional(ConnectionIdSchema),
    /**
     * The session's owner (the job's principal): fan-out posts only to connections of this
     * principal. Optional so a message from a worker of before it still parses (it is then posted
     * as before); every worker of now sets it.
     */
    owner: z.optional(PrincipalSchema),
    sentAt: TimestampSchema,
  }),
);
export type EventsQueueMessage = z.infer<typeof EventsQueueMessageSchema>;

/** Approvals queue: decisions from any system, turned into `resume` jobs. */
export const ApprovalMessageSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    sessionId: SessionIdSchema,
    runId: RunIdSchema,
    decisions: WireDecisionsSchema,
    principal: PrincipalSchema,
    requestId: z.optional(RequestIdSchema),
  }),
);
export type ApprovalMessage = z.infer<typeof ApprovalMessageSchema>;

/** Approval-requests queue (outbound): a paused run announced to whoever decides. */
export const ApprovalRequestSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    sessionId: SessionIdSchema,
    runId: RunIdSchema,
    agent: AgentNameSchema,
    interruptions: z.array(InterruptionSchema).check(z.minLength(1)),
    expiresAt: TimestampSchema,
  }),
);
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

// ---------------------------------------------------------------- HTTP API and Lambda invoke

/** `POST /runs`. */
export const HttpRunBodySchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    agent: AgentNameSchema,
    sessionId: z.optional(SessionIdSchema),
    input: RunInputSchema,
    mode: z.optional(z.enum(['sync', 'async'])),
  }),
);
export type HttpRunBody = z.infer<typeof HttpRunBodySchema>;

/** `POST /sessions/{id}/runs/{runId}/decisions`. */
export const HttpDecisionsBodySchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({ decisions: WireDecisionsSchema }),
);
export type HttpDecisionsBody = z.infer<typeof HttpDecisionsBodySchema>;

/** Direct Lambda invoke: IAM already authenticated the caller, who may name a principal. */
export const InvokePayloadSchema = /* @__PURE__ */ lazySchema(() =>
  z.discriminatedUnion('action', [
    z.strictObject({
      action: z.literal('run'),
      requestId: z.optional(RequestIdSchema),
      agent: AgentNameSchema,
      sessionId: z.optional(SessionIdSchema),
      input: RunInputSchema,
      principal: z.optional(PrincipalSchema),
    }),
    z.strictObject({
      action: z.literal('resume'),
      requestId: z.optional(RequestIdSchema),
      sessionId: SessionIdSchema,
      runId: RunIdSchema,
      decisions: WireDecisionsSchema,
      principal: z.optional(PrincipalSchema),
    }),
  ]),
);
export type InvokePayload = z.infer<typeof InvokePayloadSchema>;
