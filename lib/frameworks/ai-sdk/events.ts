import type { StepResult, TextStreamPart, ToolSet } from 'ai';
import type { StreamEvent } from '../../core/events.js';
import { isModelVisibleError, modelVisibleError } from '../../tools/errors.js';
import { mapAiSdkError } from './errors.js';
import type { PendingApproval } from './state.js';

type Part = TextStreamPart<ToolSet>;

/**
 * Maps the SDK's `fullStream` parts onto our events. Text and reasoning boundaries open only
 * once content arrives (ids are the provider's, made unique per run); tool input parts keep the
 * SDK's tool call id; approval requests are collected for the pause. Each part's events come as
 * an array: a generator per part cost the runner's async generator a wrapper per event.
 */
export class AiSdkEventMapper {
  readonly approvals: PendingApproval[] = [];
  readonly #runId: string;
  readonly #open = new Map<string, string>();
  readonly #used = new Set<string>();
  readonly #calls = new Map<string, 'open' | 'ended'>();
  #step = 0;

  constructor(runId: string) {
    this.#runId = runId;
  }

  map(part: Part, out: StreamEvent[] = []): StreamEvent[] {
    const runId = this.#runId;
    switch (part.type) {
      case 'start-step':
        this.#step += 1;
        out.push({ type: 'step-start', runId, stepId: this.#stepId() });
        return out;
      case 'finish-step': {
        const { inputTokens, outputTokens } = part.usage;
        const usage =
          inputTokens === undefined && outputTokens === undefined
            ? undefined
            : { inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0 };
        out.push({ type: 'step-end', runId, stepId: this.#stepId(), ...(usage ? { usage } : {}) });
        return out;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        if (!part.text) return out;
        const kind = part.type === 'text-delta' ? 'text' : 'reasoning';
        const id = this.#opened(kind, part.id, out);
        out.push(
          kind === 'text'
            ? { type: 'text-delta', runId, messageId: id, delta: part.text }
            : { type: 'reasoning-delta', runId, reasoningId: id, delta: part.text },
        );
        return out;
      }
      case 'text-end':
      case 'reasoning-end':
        this.#close(part.type === 'text-end' ? 'text' : 'reasoning', part.id, out);
        return out;
      case 'tool-input-start':
        this.#calls.set(part.id, 'open');
        out.push({ type: 'tool-call-start', runId, toolCallId: part.id, toolName: part.toolName });
        return out;
      case 'tool-input-delta':
        if (part.delta)
          out.push({ type: 'tool-call-args', runId, toolCallId: part.id, delta: part.delta });
        return out;
      case 'tool-input-end':
        this.#calls.set(part.id, 'ended');
        out.push({ type: 'tool-call-end', runId, toolCallId: part.id });
        return out;
      case 'tool-call':
        this.#wholeCall(part.toolCallId, part.toolName, part.input, out);
        return out;
      case 'tool-result':
        out.push({
          type: 'tool-call-result',
          runId,
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          result: part.output,
          ...(isModelVisibleError(part.output) ? { isError: true } : {}),
        });
        return out;
      case 'tool-error':
        out.push(this.#failed(part.toolCallId, part.toolName, modelVisibleError(part.error)));
        return out;
      case 'tool-output-denied':
        out.push(
          this.#failed(part.toolCallId, part.toolName, {
            error: { kind: 'approval-denied', message: 'The call was not approved.' },
          }),
        );
        return out;
      case 'tool-approval-request':
        this.approvals.push({
          approvalId: part.approvalId,
          toolCallId: part.toolCall.toolCallId,
          toolName: part.toolCall.toolName,
          input: part.toolCall.input,
        });
        return out;
      case 'error':
        throw mapAiSdkError(part.error);
      case 'abort': {
        const err = new Error(part.reason ?? 'The run was aborted.');
        err.name = 'AbortError';
        throw err;
      }
      default:
        return out;
    }
  }

  /**
   * A `generateText` result's steps as the stream parts `streamText` would have sent: each
   * step's text and reasoning whole, its tool calls, results and approval requests.
   */
  mapSteps(steps: readonly StepResult<ToolSet>[]): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const [n, step] of steps.entries()) {
      this.map({ type: 'start-step' } as Part, out);
      for (const [i, content] of step.content.entries()) {
        if (content.type === 'text' || content.type === 'reasoning') {
          const id = `${content.type}-${n}-${i}`;
          this.map({ type: `${content.type}-delta`, id, text: content.text } as Part, out);
          this.map({ type: `${content.type}-end`, id } as Part, out);
        } else this.map(content as Part, out);
      }
      this.map({ type: 'finish-step', usage: step.usage } as Part, out);
    }
    return out;
  }

  /** Closes whatever the provider left open (a stream that ended without its end parts). */
  finish(): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const key of [...this.#open.keys()]) {
      const [kind, id] = key.split('\u0000') as ['text' | 'reasoning', string];
      this.#close(kind, id, out);
    }
    return out;
  }

  #stepId(): string {
    return `${this.#runId}-step-${this.#step}`;
  }

  #opened(kind: 'text' | 'reasoning', partId: string, out: StreamEvent[]): string {
    const key = `${kind}\u0000${partId}`;
    const open = this.#open.get(key);
    if (open) return open;
    // Chat Completions reuses part ids across steps; our ids stay unique within a run.
    let id = partId || kind;
    if (this.#used.has(id)) id = `${id}-${this.#step}-${this.#used.size}`;
    this.#used.add(id);
    this.#open.set(key, id);
    out.push(
      kind === 'text'
        ? { type: 'message-start', runId: this.#runId, messageId: id }
        : { type: 'reasoning-start', runId: this.#runId, reasoningId: id },
    );
    return id;
  }

  #close(kind: 'text' | 'reasoning', partId: string, out: StreamEvent[]): void {
    const key = `${kind}\u0000${partId}`;
    const id = this.#open.get(key);
    if (!id) return;
    this.#open.delete(key);
    out.push(
      kind === 'text'
        ? { type: 'message-end', runId: this.#runId, messageId: id }
        : { type: 'reasoning-end', runId: this.#runId, reasoningId: id },
    );
  }

  /** A call whose input was not streamed (or not closed) gets its boundaries here. */
  #wholeCall(toolCallId: string, toolName: string, input: unknown, out: StreamEvent[]): void {
    const runId = this.#runId;
    const state = this.#calls.get(toolCallId);
    if (state === 'ended') return;
    if (state === undefined) {
      out.push({ type: 'tool-call-start', runId, toolCallId, toolName });
      out.push({ type: 'tool-call-args', runId, toolCallId, delta: JSON.stringify(input ?? {}) });
    }
    this.#calls.set(toolCallId, 'ended');
    out.push({ type: 'tool-call-end', runId, toolCallId });
  }

  #failed(toolCallId: string, toolName: string, result: unknown): StreamEvent {
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
