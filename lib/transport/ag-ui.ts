import type { StreamEvent } from '../core/events.js';
import type { AgentReply, Interruption, Usage } from '../core/requests.js';
import type { EventsMessage } from './protocol.js';

/**
 * AG-UI (https://docs.ag-ui.com/concepts/events) encoding of our stream: one AG-UI event per
 * StreamEvent, threadId = sessionId. Types are written out here so the @ag-ui packages stay
 * out of the bundle. What AG-UI has no field for travels in `metadata` (a field of every
 * AG-UI event; older clients keep unknown fields).
 *
 * - reasoning-start/-delta/-end become REASONING_MESSAGE_START/_CONTENT/_END with
 *   messageId = reasoningId. The optional REASONING_START/REASONING_END phase markers are not
 *   sent: they would break the one-to-one mapping and clients build the message without them.
 * - run-paused becomes RUN_FINISHED with `outcome: {type: "interrupt", interrupts}` (AG-UI's
 *   interrupt-aware lifecycle); a tool approval is reason "tool_call" with toolCallId = the
 *   interruption id (our runners use the call id), an input request is "input_required".
 * - run-finished becomes RUN_FINISHED with `outcome: {type: "success"}` and the reply as
 *   `result`.
 * - tool-call-result has no message id of its own: it gets `<toolCallId>:result`.
 * - run-retrying (an attempt stopped, the job will be retried; not terminal) becomes a CUSTOM
 *   event named "run-retrying" with `{runId, code, message, retryInSeconds?}` as its value.
 */

type Metadata = Record<string, unknown>;
interface Base {
  metadata?: Metadata;
}

export interface AgUiInterrupt {
  id: string;
  reason: 'tool_call' | 'input_required';
  message?: string;
  toolCallId?: string;
  metadata?: Metadata;
}

export interface AgUiTokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export type AgUiEvent = Base &
  (
    | { type: 'RUN_STARTED'; threadId: string; runId: string }
    | {
        type: 'RUN_FINISHED';
        threadId: string;
        runId: string;
        result?: unknown;
        outcome: { type: 'success' } | { type: 'interrupt'; interrupts: AgUiInterrupt[] };
        usage?: AgUiTokenUsage[];
      }
    | { type: 'RUN_ERROR'; message: string; code: string }
    | { type: 'CUSTOM'; name: string; value: unknown }
    | { type: 'STEP_STARTED'; stepName: string }
    | { type: 'STEP_FINISHED'; stepName: string }
    | { type: 'TEXT_MESSAGE_START'; messageId: string; role: 'assistant' }
    | { type: 'TEXT_MESSAGE_CONTENT'; messageId: string; delta: string }
    | { type: 'TEXT_MESSAGE_END'; messageId: string }
    | { type: 'REASONING_MESSAGE_START'; messageId: string; role: 'reasoning' }
    | { type: 'REASONING_MESSAGE_CONTENT'; messageId: string; delta: string }
    | { type: 'REASONING_MESSAGE_END'; messageId: string }
    | { type: 'TOOL_CALL_START'; toolCallId: string; toolCallName: string }
    | { type: 'TOOL_CALL_ARGS'; toolCallId: string; delta: string }
    | { type: 'TOOL_CALL_END'; toolCallId: string }
    | {
        type: 'TOOL_CALL_RESULT';
        messageId: string;
        toolCallId: string;
        content: string;
        role: 'tool';
      }
  );

export type AgUiEventType = AgUiEvent['type'];

/** An `events` message for a subscriber that asked for AG-UI: same envelope and seq. */
export interface AgUiEventsMessage extends Omit<EventsMessage, 'events'> {
  format: 'ag-ui';
  events: AgUiEvent[];
}

export function toAgUiEvent(event: StreamEvent): AgUiEvent {
  switch (event.type) {
    case 'run-started':
      return {
        type: 'RUN_STARTED',
        threadId: event.sessionId,
        runId: event.runId,
        metadata: { agent: event.agent },
      };
    case 'message-start':
      return { type: 'TEXT_MESSAGE_START', messageId: event.messageId, role: 'assistant' };
    case 'text-delta':
      return { type: 'TEXT_MESSAGE_CONTENT', messageId: event.messageId, delta: event.delta };
    case 'message-end':
      return { type: 'TEXT_MESSAGE_END', messageId: event.messageId };
    case 'reasoning-start':
      return { type: 'REASONING_MESSAGE_START', messageId: event.reasoningId, role: 'reasoning' };
    case 'reasoning-delta':
      return {
        type: 'REASONING_MESSAGE_CONTENT',
        messageId: event.reasoningId,
        delta: event.delta,
      };
    case 'reasoning-end':
      return { type: 'REASONING_MESSAGE_END', messageId: event.reasoningId };
    case 'tool-call-start':
      return {
        type: 'TOOL_CALL_START',
        toolCallId: event.toolCallId,
        toolCallName: event.toolName,
      };
    case 'tool-call-args':
      return { type: 'TOOL_CALL_ARGS', toolCallId: event.toolCallId, delta: event.delta };
    case 'tool-call-end':
      return { type: 'TOOL_CALL_END', toolCallId: event.toolCallId };
    case 'tool-call-result':
      return {
        type: 'TOOL_CALL_RESULT',
        messageId: `${event.toolCallId}:result`,
        toolCallId: event.toolCallId,
        content: toContent(event.result),
        role: 'tool',
        metadata: {
          toolName: event.toolName,
          ...(event.isError === undefined ? {} : { isError: event.isError }),
        },
      };
    case 'step-start':
      return { type: 'STEP_STARTED', stepName: event.stepId };
    case 'step-end':
      return {
        type: 'STEP_FINISHED',
        stepName: event.stepId,
        ...(event.usage === undefined ? {} : { metadata: { usage: event.usage } }),
      };
    case 'run-paused':
      return {
        type: 'RUN_FINISHED',
        threadId: event.sessionId,
        runId: event.runId,
        outcome: { type: 'interrupt', interrupts: event.interruptions.map(toInterrupt) },
      };
    case 'run-finished':
      return runFinished(event.reply);
    case 'run-error':
      return { type: 'RUN_ERROR', message: event.message, code: event.code };
    case 'run-retrying':
      // Not a RUN_ERROR (that ends an AG-UI run): a CUSTOM event clients may show or ignore.
      return {
        type: 'CUSTOM',
        name: 'run-retrying',
        value: {
          runId: event.runId,
          code: event.code,
          message: event.message,
          ...(event.retryInSeconds === undefined ? {} : { retryInSeconds: event.retryInSeconds }),
        },
      };
  }
}

export function toAgUiMessage(message: EventsMessage): AgUiEventsMessage {
  return { ...message, format: 'ag-ui', events: message.events.map(toAgUiEvent) };
}

function runFinished(reply: AgentReply): AgUiEvent {
  return {
    type: 'RUN_FINISHED',
    threadId: reply.sessionId,
    runId: reply.runId,
    result: reply,
    outcome: { type: 'success' },
    ...(reply.usage === undefined ? {} : { usage: [toTokenUsage(reply.usage)] }),
  };
}

function toTokenUsage(usage: Usage): AgUiTokenUsage {
  return { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
}

function toInterrupt(interruption: Interruption): AgUiInterrupt {
  const metadata: Metadata = {};
  if (interruption.toolName !== undefined) metadata.toolName = interruption.toolName;
  if (interruption.arguments !== undefined) metadata.arguments = interruption.arguments;
  const isTool = interruption.kind === 'tool-approval';
  return {
    id: interruption.id,
    reason: isTool ? 'tool_call' : 'input_required',
    ...(interruption.message === undefined ? {} : { message: interruption.message }),
    ...(isTool ? { toolCallId: interruption.id } : {}),
    ...(Object.keys(metadata).length === 0 ? {} : { metadata }),
  };
}

/** AG-UI wants the result as text: strings go as they are, anything else as JSON. */
function toContent(result: unknown): string {
  if (typeof result === 'string') return result;
  return JSON.stringify(result) ?? '';
}
