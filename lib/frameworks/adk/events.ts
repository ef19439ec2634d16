import { type Event, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME } from '@google/adk';
import type { StreamEvent } from '../../core/events.js';
import { isModelVisibleError } from '../../tools/errors.js';
import type { PendingConfirmation } from './state.js';

type Part = NonNullable<NonNullable<Event['content']>['parts']>[number];

/**
 * Maps ADK's events onto ours. With SSE streaming ADK yields partial events (text and thought
 * deltas) and then the whole response once more: the whole one only closes what the partials
 * opened, or is sent whole when nothing was streamed (a replayed or non-streamed response).
 * Function calls keep the model's call ids; confirmation requests are collected for the pause.
 */
export class AdkEventMapper {
  readonly confirmations: PendingConfirmation[] = [];
  readonly #runId: string;
  readonly #open = new Map<'text' | 'reasoning', string>();
  #ids = 0;
  #streamed = false;
  #reply = '';
  #callsSinceText = false;

  constructor(runId: string) {
    this.#runId = runId;
  }

  /** The text of the agent's last answer (text after a tool step starts a new answer). */
  get text(): string {
    return this.#reply;
  }

  *map(event: Event): Generator<StreamEvent> {
    if (event.author === 'user' || !event.content?.parts) return;
    const parts = event.content.parts;
    if (event.partial) {
      for (const part of parts) yield* this.#delta(part);
      return;
    }
    const streamed = this.#streamed;
    this.#streamed = false;
    if (streamed) yield* this.finish();
    else for (const part of parts) yield* this.#delta(part);
    yield* this.finish();
    for (const part of parts) yield* this.#whole(part);
  }

  /** Closes an open message or reasoning (a stream cut short, or the end of a response). */
  *finish(): Generator<StreamEvent> {
    const runId = this.#runId;
    for (const [kind, id] of this.#open) {
      yield kind === 'text'
        ? { type: 'message-end', runId, messageId: id }
        : { type: 'reasoning-end', runId, reasoningId: id };
    }
    this.#open.clear();
  }

  *#delta(part: Part): Generator<StreamEvent> {
    if (typeof part.text !== 'string' || part.text === '') return;
    const runId = this.#runId;
    const kind = part.thought ? 'reasoning' : 'text';
    const other = kind === 'text' ? 'reasoning' : 'text';
    if (this.#open.has(other)) {
      const id = this.#open.get(other) as string;
      this.#open.delete(other);
      yield other === 'text'
        ? { type: 'message-end', runId, messageId: id }
        : { type: 'reasoning-end', runId, reasoningId: id };
    }
    let id = this.#open.get(kind);
    if (!id) {
      this.#ids += 1;
      id = `${runId}-${kind}-${this.#ids}`;
      this.#open.set(kind, id);
      yield kind === 'text'
        ? { type: 'message-start', runId, messageId: id }
        : { type: 'reasoning-start', runId, reasoningId: id };
    }
    this.#streamed = true;
    if (kind === 'text') {
      if (this.#callsSinceText) this.#reply = '';
      this.#callsSinceText = false;
      this.#reply += part.text;
      yield { type: 'text-delta', runId, messageId: id, delta: part.text };
    } else yield { type: 'reasoning-delta', runId, reasoningId: id, delta: part.text };
  }

  *#whole(part: Part): Generator<StreamEvent> {
    const runId = this.#runId;
    const call = part.functionCall;
    if (call?.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME) {
      this.#confirmation(call.id, call.args);
      return;
    }
    if (call?.name) {
      const toolCallId = call.id ?? '';
      this.#callsSinceText = true;
      yield { type: 'tool-call-start', runId, toolCallId, toolName: call.name };
      yield { type: 'tool-call-args', runId, toolCallId, delta: JSON.stringify(call.args ?? {}) };
      yield { type: 'tool-call-end', runId, toolCallId };
      return;
    }
    const response = part.functionResponse;
    if (response?.name && response.name !== REQUEST_CONFIRMATION_FUNCTION_CALL_NAME) {
      const result = unwrap(response.response);
      yield {
        type: 'tool-call-result',
        runId,
        toolCallId: response.id ?? '',
        toolName: response.name,
        result,
        ...(isToolError(result) ? { isError: true } : {}),
      };
    }
  }

  #confirmation(id: string | undefined, args: Record<string, unknown> | undefined): void {
    const original = args?.originalFunctionCall as
      | { id?: string; name?: string; args?: Record<string, unknown> }
      | undefined;
    if (!id || !original?.id || !original.name) return;
    this.confirmations.push({
      confirmationId: id,
      callId: original.id,
      toolName: original.name,
      args: original.args ?? {},
    });
  }
}

/**
 * The tool's own result: ADK sends the model an object, wrapping a plain value as
 * `{ result }` and an array as `{ results }`.
 */
function unwrap(response: Record<string, unknown> | undefined): unknown {
  const keys = response ? Object.keys(response) : [];
  if (keys.length !== 1 || !response) return response;
  if (keys[0] === 'result' && (typeof response.result !== 'object' || response.result === null)) {
    return response.result;
  }
  if (keys[0] === 'results' && Array.isArray(response.results)) return response.results;
  return response;
}

/** Our model-visible errors, and ADK's own `{ error: string }` (a tool that threw). */
function isToolError(result: unknown): boolean {
  if (isModelVisibleError(result)) return true;
  const error = (result as { error?: unknown } | undefined)?.error;
  return typeof error === 'string';
}
