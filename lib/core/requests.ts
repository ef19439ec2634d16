import * as z from 'zod/mini';
import { lazySchema } from './lazy-schema.js';

/** What a caller sends into a turn. Binary content travels base64-encoded so it stays JSON. */
export const TextRequestSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    type: z.literal('text'),
    text: z.string().check(z.minLength(1, 'text must not be empty')),
  }),
);

const MIME = /* @__PURE__ */ lazySchema(() =>
  z.string().check(z.regex(/^[\w.+-]+\/[\w.+-]+$/, 'mimeType must look like "type/subtype"')),
);
const BASE64 = /* @__PURE__ */ lazySchema(() =>
  z.string().check(z.regex(/^[A-Za-z0-9+/]+={0,2}$/, 'data must be base64')),
);

export const ImageRequestSchema = /* @__PURE__ */ lazySchema(() =>
  z.union([
    z.strictObject({ type: z.literal('image'), url: z.url() }),
    z.strictObject({ type: z.literal('image'), data: BASE64, mimeType: MIME }),
  ]),
);

export const FileRequestSchema = /* @__PURE__ */ lazySchema(() =>
  z.union([
    z.strictObject({ type: z.literal('file'), url: z.url(), name: z.optional(z.string()) }),
    z.strictObject({
      type: z.literal('file'),
      data: BASE64,
      mimeType: MIME,
      name: z.optional(z.string().check(z.minLength(1))),
    }),
  ]),
);

export const RequestSchema = /* @__PURE__ */ lazySchema(() =>
  z.union([TextRequestSchema, ImageRequestSchema, FileRequestSchema]),
);
export const RequestsSchema = /* @__PURE__ */ lazySchema(() =>
  z.array(RequestSchema).check(z.minLength(1, 'at least one request is needed')),
);

export type TextRequest = z.infer<typeof TextRequestSchema>;
export type ImageRequest = z.infer<typeof ImageRequestSchema>;
export type FileRequest = z.infer<typeof FileRequestSchema>;
export type Request = z.infer<typeof RequestSchema>;

/** What callers may pass: a plain string is one text request. */
export type RunInput = string | Request | readonly Request[];

export const UsageSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    inputTokens: z.number().check(z.int(), z.nonnegative()),
    outputTokens: z.number().check(z.int(), z.nonnegative()),
  }),
);
export type Usage = z.infer<typeof UsageSchema>;

export const InterruptionSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    id: z.string().check(z.minLength(1)),
    kind: z.enum(['tool-approval', 'input']),
    toolName: z.optional(z.string()),
    arguments: z.optional(z.unknown()),
    message: z.optional(z.string()),
  }),
);
export type Interruption = z.infer<typeof InterruptionSchema>;

export const AgentReplySchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    status: z.literal('completed'),
    runId: z.string(),
    sessionId: z.string(),
    agent: z.string(),
    /** The final assistant text ('' when the agent produced only structured output). */
    text: z.string(),
    /** Structured final output when the agent declares an output type. */
    output: z.optional(z.unknown()),
    usage: z.optional(UsageSchema),
  }),
);
export type AgentReply = z.infer<typeof AgentReplySchema>;

export const PausedReplySchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    status: z.literal('paused'),
    runId: z.string(),
    sessionId: z.string(),
    agent: z.string(),
    interruptions: z.array(InterruptionSchema).check(z.minLength(1)),
    /** What the agent said before it paused (absent when nothing). */
    text: z.optional(z.string()),
  }),
);
export type PausedReply = z.infer<typeof PausedReplySchema>;

export const ReplySchema = /* @__PURE__ */ lazySchema(() =>
  z.discriminatedUnion('status', [AgentReplySchema, PausedReplySchema]),
);
export type Reply = AgentReply | PausedReply;
