import type { ChunkType } from '@mastra/core/stream';
import type { StreamEvent } from '../../core/events.js';
import { isModelVisibleError, modelVisibleError } from '../../tools/errors.js';
import { mapMastraError } from './errors.js';

/**
 * A tool call Mastra holds: at its approval gate (approved or declined later), or suspended by the
 * tool itself (`suspend(payload)`, resumed with the person's answer as resume data).
 */
export interface PendingApproval {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: unknown;
  /** Present when the tool suspended itself: what it asked. */
  readonly suspended?: { readonly payload: unknown };
}

/**
 * Maps Mastra's `fullStream` chunks onto our events. Text and reasoning boundaries open only once
 * content arrives (ids are the provider's, made unique per run); tool events keep the model's
 * tool call id; approval requests are collected for the pause.
 */
export class MastraEventMapper {
  readonly approvals: PendingApproval[] = [];
  /** The error the stream reported (Mastra reports a failed model call as a chunk). */
  error: unknown;
  readonly #runId: string;
  readonly #open = new Map<string, string>();
  readonly #used = new Set<string>();
  readonly #calls = new Map<string, 'open' | 'ended'>();
  #step = 0;

  constructor(runId: string) {
    this.#runId = runId;
  }

  *map(chunk: ChunkType): Generator<StreamEvent> {
    const runId = this.#runId;
    switch (chunk.type) {
      case 'step-start':
        this.#step += 1;
        yield { type: 'step-start', runId, stepId: this.#stepId() };
        return;
      case 'step-finish': {
        yield* this.finish();
        const usage = toUsage(chunk.payload.output?.usage);
        yield { type: 'step-end', runId, stepId: this.#stepId(), ...(usage ? { usage } : {}) };
        return;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        if (!chunk.payload.text) return;
        const kind = chunk.type === 'text-delta' ? 'text' : 'reasoning';
        const id = yield* this.#opened(kind, chunk.payload.id);
        const delta = chunk.payload.text;
        yield kind === 'text'
          ? { type: 'text-delta', runId, messageId: id, delta }
          : { type: 'reasoning-delta', runId, reasoningId: id, delta };
        return;
      }
      case 'text-end':
      case 'reasoning-end':
        yield* this.#close(chunk.type === 'text-end' ? 'text' : 'reasoning', chunk.payload.id);
        return;
      case 'tool-call-input-streaming-start': {
        const { toolCallId, toolName } = chunk.payload;
        this.#calls.set(toolCallId, 'open');
        yield { type: 'tool-call-start', runId, toolCallId, toolName };
        return;
      }
      case 'tool-call-delta':
        if (chunk.payload.argsTextDelta) {
          const { toolCallId, argsTextDelta: delta } = chunk.payload;
          yield { type: 'tool-call-args', runId, toolCallId, delta };
        }
        return;
      case 'tool-call-input-streaming-end':
        yield* this.#endCall(chunk.payload.toolCallId);
        return;
      case 'tool-call':
        yield* this.#wholeCall(
          chunk.payload.toolCallId,
          chunk.payload.toolName,
          chunk.payload.args,
        );
        return;
      case 'tool-result': {
        const { toolCallId, toolName, result } = chunk.payload;
        const isError = chunk.payload.isError === true || isModelVisibleError(result);
        yield {
          type: 'tool-call-result',
          runId,
          toolCallId,
          toolName,
          result,
          ...(isError ? { isError: true } : {}),
        };
        return;
      }
      case 'tool-error':
        yield this.#failed(chunk.payload.toolCallId, chunk.payload.toolName, chunk.payload.error);
        return;
      case 'tool-call-approval':
        this.approvals.push({
          toolCallId: chunk.payload.toolCallId,
          toolName: chunk.payload.toolName,
          args: chunk.payload.args,
        });
        return;
      case 'tool-call-suspended':
        this.approvals.push({
          toolCallId: chunk.payload.toolCallId,
          toolName: chunk.payload.toolName,
          args: chunk.payload.args,
          suspended: { payload: chunk.payload.suspendPayload ?? null },
        });
        return;
      case 'error':
        this.error ??= chunk.payload.error;
        return;
      default:
        return;
    }
  }

  /** Closes whatever the provider left open (a step that ended without its end parts). */
  *finish(): Generator<StreamEvent> {
    for (const key of [...this.#open.keys()]) {
      const [kind, id] = key.split('\u0000') as ['text' | 'reasoning', string];
      yield* this.#close(kind, id);
    }
  }

  /** The stream's error as ours (a model failure becomes a `ModelError`). */
  failure(): unknown {
    return this.error === undefined ? undefined : mapMastraError(this.error);
  }

  #stepId(): string {
    return `${this.#runId}-step-${this.#step}`;
  }

  *#opened(kind: 'text' | 'reasoning', partId: string): Generator<StreamEvent, string> {
    const key = `${kind}\u0000${partId}`;
    const open = this.#open.get(key);
    if (open) return open;
    // Providers may reuse part ids across steps; our ids stay unique within a run.
    let id = partId || kind;
    if (this.#used.has(id)) id = `${id}-${this.#step}-${this.#used.size}`;
    this.#used.add(id);
    this.#open.set(key, id);
    yield kind === 'text'
      ? { type: 'message-start', runId: this.#runId, messageId: id }
      : { type: 'reasoning-start', runId: this.#runId, reasoningId: id };
    return id;
  }

  *#close(kind: 'text' | 'reasoning', partId: string): Generator<StreamEvent> {
    const key = `${kind}\u0000${partId}`;
    const id = this.#open.get(key);
    if (!id) return;
    this.#open.delete(key);
    yield kind === 'text'
      ? { type: 'message-end', runId: this.#runId, messageId: id }
      : { type: 'reasoning-end', runId: this.#runId, reasoningId: id };
  }

  *#endCall(toolCallId: string): Generator<StreamEvent> {
    if (this.#calls.get(toolCallId) !== 'open') return;
    this.#calls.set(toolCallId, 'ended');
    yield { type: 'tool-call-end', runId: this.#runId, toolCallId };
  }

  /** A call whose input was not streamed (or not closed) gets its boundaries here. */
  *#wholeCall(toolCallId: string, toolName: string, args: unknown): Generator<StreamEvent> {
    const runId = this.#runId;
    const state = this.#calls.get(toolCallId);
    if (state === 'ended') return;
    if (state === undefined) {
      this.#calls.set(toolCallId, 'open');
      yield { type: 'tool-call-start', runId, toolCallId, toolName };
      yield { type: 'tool-call-args', runId, toolCallId, delta: JSON.stringify(args ?? {}) };
    }
    yield* this.#endCall(toolCallId);
  }

  #failed(toolCallId: string, toolName: string, error: unknown): StreamEvent {
    const result = isModelVisibleError(error) ? error : modelVisibleError(error);
    return {
      type: 'tool-call-result',
      runId: this.#runId,
      toolCallId,
      toolName,
      result,
      isError: true,
    };
  }
}

function toUsage(
  usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined,
): { inputTokens: number; outputTokens: number } | undefined {
  if (!usage?.inputTokens && !usage?.outputTokens) return undefined;
  return { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 };
}
