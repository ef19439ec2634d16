import {
  AIMessageChunk,
  type BaseMessage,
  isAIMessage,
  isToolMessage,
} from '@langchain/core/messages';
import type { StreamEvent } from '../../core/events.js';
import type { Usage } from '../../core/requests.js';
import { isModelVisibleError } from '../../tools/errors.js';

/** A LangGraph interrupt as the `updates` stream reports it. */
export interface RawInterrupt {
  readonly id?: string;
  readonly value?: unknown;
}

/**
 * Maps LangGraph's `['messages', 'updates']` stream onto our events: model tokens (message
 * chunks) become text and tool-call deltas with the model's own call ids; a node's update closes
 * what its model streamed, fills in whatever was not streamed and reports tool results
 * (ToolMessages); `__interrupt__` updates are collected for the pause.
 */
export class LangGraphEventMapper {
  readonly interrupts: RawInterrupt[] = [];
  readonly #runId: string;
  /** The AI message being streamed, and its tool calls by chunk index. */
  #message: { id: string; started: boolean } | undefined;
  readonly #calls = new Map<string | number, { id: string; ended: boolean }>();
  readonly #seenMessages = new Set<string>();
  readonly #seenCalls = new Set<string>();
  #usage: Usage | undefined;
  #count = 0;

  constructor(runId: string) {
    this.#runId = runId;
  }

  get usage(): Usage | undefined {
    return this.#usage;
  }

  *map(chunk: unknown): Generator<StreamEvent> {
    const [mode, data] = chunk as [string, unknown];
    if (mode === 'messages') {
      const [message] = data as [BaseMessage, unknown];
      if (AIMessageChunk.isInstance(message)) yield* this.#chunk(message);
      return;
    }
    if (mode !== 'updates' || data === null || typeof data !== 'object') return;
    yield* this.finish();
    for (const [node, update] of Object.entries(data as Record<string, unknown>)) {
      if (node === '__interrupt__') {
        this.interrupts.push(...(Array.isArray(update) ? update : [update]));
        continue;
      }
      const messages = (update as { messages?: unknown } | null | undefined)?.messages;
      for (const message of Array.isArray(messages) ? messages : messages ? [messages] : []) {
        yield* this.#settled(message as BaseMessage);
      }
    }
  }

  /** Closes the message and tool calls still open (a node finished or the stream ended). */
  *finish(): Generator<StreamEvent> {
    const runId = this.#runId;
    for (const call of this.#calls.values()) {
      if (!call.ended) yield { type: 'tool-call-end', runId, toolCallId: call.id };
    }
    this.#calls.clear();
    if (this.#message?.started) {
      yield { type: 'message-end', runId, messageId: this.#message.id };
    }
    this.#message = undefined;
  }

  *#chunk(message: AIMessageChunk): Generator<StreamEvent> {
    const runId = this.#runId;
    const id = message.id ?? this.#message?.id ?? `${runId}-message-${++this.#count}`;
    if (this.#message && this.#message.id !== id) yield* this.finish();
    this.#message ??= { id, started: false };
    this.#seenMessages.add(id);
    const text = textOf(message.content);
    if (text) {
      if (!this.#message.started) {
        this.#message.started = true;
        yield { type: 'message-start', runId, messageId: id };
      }
      yield { type: 'text-delta', runId, messageId: id, delta: text };
    }
    for (const part of message.tool_call_chunks ?? []) {
      const key = part.index ?? part.id ?? 0;
      let call = this.#calls.get(key);
      if (!call && part.id) {
        call = { id: part.id, ended: false };
        this.#calls.set(key, call);
        this.#seenCalls.add(part.id);
        yield { type: 'tool-call-start', runId, toolCallId: part.id, toolName: part.name ?? '' };
      }
      if (call && part.args) {
        yield { type: 'tool-call-args', runId, toolCallId: call.id, delta: part.args };
      }
    }
  }

  /** A node's finished message: what was not streamed is emitted whole; tool results. */
  *#settled(message: BaseMessage): Generator<StreamEvent> {
    const runId = this.#runId;
    if (isToolMessage(message)) {
      const result = parse(message.content);
      yield {
        type: 'tool-call-result',
        runId,
        toolCallId: message.tool_call_id,
        toolName: message.name ?? '',
        result,
        ...(message.status === 'error' || isModelVisibleError(result) ? { isError: true } : {}),
      };
      return;
    }
    if (!isAIMessage(message)) return;
    this.#addUsage(message.usage_metadata);
    const id = message.id ?? `${runId}-message-${++this.#count}`;
    if (!this.#seenMessages.has(id)) {
      this.#seenMessages.add(id);
      const text = textOf(message.content);
      if (text) {
        yield { type: 'message-start', runId, messageId: id };
        yield { type: 'text-delta', runId, messageId: id, delta: text };
        yield { type: 'message-end', runId, messageId: id };
      }
    }
    for (const call of message.tool_calls ?? []) {
      if (!call.id || this.#seenCalls.has(call.id)) continue;
      this.#seenCalls.add(call.id);
      yield { type: 'tool-call-start', runId, toolCallId: call.id, toolName: call.name };
      yield {
        type: 'tool-call-args',
        runId,
        toolCallId: call.id,
        delta: JSON.stringify(call.args),
      };
      yield { type: 'tool-call-end', runId, toolCallId: call.id };
    }
  }

  #addUsage(usage: { input_tokens?: number; output_tokens?: number } | undefined): void {
    if (!usage || (!usage.input_tokens && !usage.output_tokens)) return;
    this.#usage = {
      inputTokens: (this.#usage?.inputTokens ?? 0) + (usage.input_tokens ?? 0),
      outputTokens: (this.#usage?.outputTokens ?? 0) + (usage.output_tokens ?? 0),
    };
  }
}

/** The text of a message's content: a string, or its text blocks. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) =>
      block && typeof block === 'object' && block.type === 'text' ? String(block.text ?? '') : '',
    )
    .join('');
}

function parse(content: unknown): unknown {
  if (typeof content !== 'string') return content;
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}
