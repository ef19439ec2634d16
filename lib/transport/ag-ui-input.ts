import * as z from 'zod';
import { AgentNameSchema } from '../core/agent.js';
import { SessionIdSchema } from '../core/session.js';
import { MAX_DECISIONS, RunIdSchema, RunInputSchema } from './protocol.js';

/**
 * `POST /ag-ui`'s body: an AG-UI `RunAgentInput` (https://docs.ag-ui.com, @ag-ui/core 1.0) as
 * our strict schema, so it passes the same gate as every other front (lib/transport/parse.ts):
 * a field AG-UI 1.0 does not define is an error, `forwardedProps` names only `agent`, and the
 * user message that runs is checked as a run input (non-empty text, at most 96 KB). Written
 * here rather than taken from @ag-ui/core, whose schemas are open (extra keys pass) and which
 * lib/transport may not import. `state`, `tools` and `context` are accepted and not used; the
 * gate bounds their size, depth and keys like everything else.
 */

/** Free text of a message other than the one that runs: bounded by the message size only. */
const Text = z.string();
/** AG-UI ids are the client's (uuids, say): short, but not our id alphabet. */
const ClientId = z.string().min(1).max(256);
const Metadata = z.record(z.string(), z.unknown());

const common = {
  id: ClientId,
  subagentRunId: z.string().max(256).optional(),
  encryptedValue: Text.optional(),
  metadata: Metadata.optional(),
};

const TextPart = z.strictObject({ type: z.literal('text'), text: Text });
/** Media parts: accepted in history (unused); the message that runs must be text only. */
const MediaPart = z.looseObject({ type: z.enum(['image', 'audio', 'video', 'document']) });
const ContentPart = z.discriminatedUnion('type', [TextPart, MediaPart]);
const Content = z.union([Text, z.array(ContentPart)]);

const ToolCall = z.strictObject({
  id: ClientId,
  type: z.literal('function'),
  function: z.strictObject({ name: Text, arguments: Text }),
  encryptedValue: Text.optional(),
  metadata: Metadata.optional(),
});

const AgUiMessageSchema = z.discriminatedUnion('role', [
  z.strictObject({ ...common, role: z.literal('user'), name: Text.optional(), content: Content }),
  z.strictObject({
    ...common,
    role: z.literal('assistant'),
    name: Text.optional(),
    content: Text.optional(),
    toolCalls: z.array(ToolCall).optional(),
  }),
  z.strictObject({ ...common, role: z.literal('system'), name: Text.optional(), content: Text }),
  z.strictObject({ ...common, role: z.literal('developer'), name: Text.optional(), content: Text }),
  z.strictObject({
    ...common,
    role: z.literal('tool'),
    content: Content,
    toolCallId: ClientId,
    error: Text.optional(),
  }),
  z.strictObject({
    ...common,
    role: z.literal('activity'),
    activityType: Text,
    content: z.record(z.string(), z.unknown()),
  }),
  z.strictObject({ ...common, role: z.literal('reasoning'), content: Text }),
]);
export type AgUiMessage = z.infer<typeof AgUiMessageSchema>;

const ResumeEntrySchema = z.strictObject({
  interruptId: ClientId,
  status: z.enum(['resolved', 'cancelled']),
  payload: z
    .strictObject({ approved: z.boolean().optional(), arguments: z.unknown().optional() })
    .optional(),
  metadata: Metadata.optional(),
});

export const AgUiRunInputSchema = z
  .strictObject({
    threadId: SessionIdSchema,
    /** The client's run id: not ours (RUN_STARTED carries ours), so only bounded. */
    runId: ClientId,
    protocolVersion: z.string().max(32).optional(),
    parentRunId: z.optional(RunIdSchema),
    state: z.unknown().optional(),
    messages: z.array(AgUiMessageSchema),
    tools: z
      .array(
        z.strictObject({
          name: Text,
          description: Text,
          parameters: z.unknown().optional(),
          metadata: Metadata.optional(),
        }),
      )
      .optional(),
    context: z.array(z.strictObject({ description: Text, value: Text })).optional(),
    forwardedProps: z.strictObject({ agent: z.optional(AgentNameSchema) }).optional(),
    resume: z
      .array(ResumeEntrySchema)
      .min(1)
      .max(MAX_DECISIONS, `at most ${MAX_DECISIONS} resume entries are allowed`)
      .optional(),
  })
  .check((ctx) => {
    if (ctx.value.resume) return;
    // A run (not a resume) runs its last user message: checked here as any run input is.
    const at = lastUserIndex(ctx.value.messages);
    if (at < 0) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value.messages,
        path: ['messages'],
        message: 'must hold a user message to run',
      });
      return;
    }
    const message = ctx.value.messages[at] as Extract<AgUiMessage, { role: 'user' }>;
    const path = ['messages', at, 'content'];
    if (typeof message.content !== 'string' && message.content.some((p) => p.type !== 'text')) {
      ctx.issues.push({
        code: 'custom',
        input: message.content,
        path,
        message: 'must be text only (the message that runs)',
      });
      return;
    }
    const checked = RunInputSchema.safeParse(textOf(message.content));
    for (const issue of checked.error?.issues ?? []) {
      ctx.issues.push({ ...issue, input: message.content, path } as never);
    }
  });
export type AgUiRunInput = z.infer<typeof AgUiRunInputSchema>;

/** The run input of an AG-UI run: its last user message's text (the schema checked it). */
export function agUiRunText(input: AgUiRunInput): string {
  const message = input.messages[lastUserIndex(input.messages)];
  return message?.role === 'user' ? textOf(message.content) : '';
}

function lastUserIndex(messages: readonly AgUiMessage[]): number {
  return messages.findLastIndex((m) => m.role === 'user');
}

function textOf(content: Extract<AgUiMessage, { role: 'user' }>['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('')
    .trim();
}
