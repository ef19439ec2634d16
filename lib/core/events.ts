import * as z from 'zod/mini';
import { lazySchema } from './lazy-schema.js';
import { AgentReplySchema, InterruptionSchema, UsageSchema } from './requests.js';

/**
 * The typed stream of a run: plain JSON objects discriminated by `type`, each carrying `runId`.
 * Ids (message, tool call) come from the framework where it has them.
 */
const base = () => ({ runId: z.string() });

export const StreamEventSchema = /* @__PURE__ */ lazySchema(() =>
  z.discriminatedUnion('type', [
    z.strictObject({
      ...base(),
      type: z.literal('run-started'),
      sessionId: z.string(),
      agent: z.string(),
    }),
    z.strictObject({ ...base(), type: z.literal('message-start'), messageId: z.string() }),
    z.strictObject({
      ...base(),
      type: z.literal('text-delta'),
      messageId: z.string(),
      delta: z.string(),
    }),
    z.strictObject({ ...base(), type: z.literal('message-end'), messageId: z.string() }),
    z.strictObject({ ...base(), type: z.literal('reasoning-start'), reasoningId: z.string() }),
    z.strictObject({
      ...base(),
      type: z.literal('reasoning-delta'),
      reasoningId: z.string(),
      delta: z.string(),
    }),
    z.strictObject({ ...base(), type: z.literal('reasoning-end'), reasoningId: z.string() }),
    z.strictObject({
      ...base(),
      type: z.literal('tool-call-start'),
      toolCallId: z.string(),
      toolName: z.string(),
    }),
    z.strictObject({
      ...base(),
      type: z.literal('tool-call-args'),
      toolCallId: z.string(),
      delta: z.string(),
    }),
    z.strictObject({ ...base(), type: z.literal('tool-call-end'), toolCallId: z.string() }),
    z.strictObject({
      ...base(),
      type: z.literal('tool-call-result'),
      toolCallId: z.string(),
      toolName: z.string(),
      result: z.unknown(),
      isError: z.optional(z.boolean()),
      /** The result came from the run's journal (an earlier attempt ran the call), not a new run. */
      replayed: z.optional(z.literal(true)),
    }),
    z.strictObject({ ...base(), type: z.literal('step-start'), stepId: z.string() }),
    z.strictObject({
      ...base(),
      type: z.literal('step-end'),
      stepId: z.string(),
      usage: z.optional(UsageSchema),
    }),
    z.strictObject({
      ...base(),
      type: z.literal('run-paused'),
      sessionId: z.string(),
      interruptions: z.array(InterruptionSchema).check(z.minLength(1)),
    }),
    z.strictObject({ ...base(), type: z.literal('run-finished'), reply: AgentReplySchema }),
    /**
     * Not terminal: this attempt of a queued run stopped (its deadline, a throttled store, a model
     * error) and the job will be retried; the run's one terminal event comes from a later attempt.
     */
    z.strictObject({
      ...base(),
      type: z.literal('run-retrying'),
      code: z.string(),
      message: z.string(),
      /** About when the next attempt starts. */
      retryInSeconds: z.optional(z.number().check(z.nonnegative())),
    }),
    z.strictObject({
      ...base(),
      type: z.literal('run-error'),
      code: z.string(),
      message: z.string(),
    }),
  ]),
);

export type StreamEvent = z.infer<typeof StreamEventSchema>;
export type StreamEventType = StreamEvent['type'];
export type EventOf<T extends StreamEventType> = Extract<StreamEvent, { type: T }>;

/** Events that end a run's stream: nothing follows them. */
export const TERMINAL_EVENT_TYPES: ReadonlySet<StreamEventType> = new Set([
  'run-paused',
  'run-finished',
  'run-error',
]);

export function isTerminalEvent(event: StreamEvent): boolean {
  return TERMINAL_EVENT_TYPES.has(event.type);
}
