import type { AgentStreamEvent, ModelStreamEvent, ToolResultBlock } from '@strands-agents/sdk';
import type { StreamEvent } from '../../core/events.js';
import type { Usage } from '../../core/requests.js';
import { isModelVisibleError } from '../../tools/errors.js';

type Open =
  | { kind: 'text'; id: string }
  | { kind: 'reasoning'; id: string }
  | { kind: 'tool'; id: string };

/**
 * Maps the Strands agent stream onto our events: a model call (`beforeModelCallEvent` …
 * `afterModelCallEvent`) is a step; its content blocks become message, reasoning and tool-call
 * boundaries (opened when content arrives, closed at `modelContentBlockStopEvent`), tool calls
 * keep the model's `toolUseId`; `toolResultEvent`s are tool-call results. Usage is summed over
 * the run's model calls.
 */
export class StrandsEventMapper {
  usage: Usage | undefined;
  readonly #runId: string;
  readonly #toolNames = new Map<string, string>();
  #open: Open | undefined;
  #stepUsage: Usage | undefined;
  #step = 0;
  #blocks = 0;

  constructor(runId: string) {
    this.#runId = runId;
  }

  *map(event: AgentStreamEvent): Generator<StreamEvent> {
    const runId = this.#runId;
    switch (event.type) {
      case 'beforeModelCallEvent':
        this.#step += 1;
        this.#stepUsage = undefined;
        yield { type: 'step-start', runId, stepId: this.#stepId() };
        return;
      case 'modelStreamUpdateEvent':
        yield* this.#model(event.event);
        return;
      case 'afterModelCallEvent': {
        yield* this.finish();
        const usage = this.#stepUsage;
        yield { type: 'step-end', runId, stepId: this.#stepId(), ...(usage ? { usage } : {}) };
        return;
      }
      case 'beforeToolCallEvent':
        // A resumed call was streamed by the turn that paused: its name comes from here.
        this.#toolNames.set(event.toolUse.toolUseId, event.toolUse.name);
        return;
      case 'toolResultEvent':
        yield this.#result(event.result);
        return;
      default:
        return;
    }
  }

  /** Closes whatever the model left open (a stream that ended without its stop event). */
  *finish(): Generator<StreamEvent> {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    const runId = this.#runId;
    if (open.kind === 'text') yield { type: 'message-end', runId, messageId: open.id };
    else if (open.kind === 'reasoning')
      yield { type: 'reasoning-end', runId, reasoningId: open.id };
    else yield { type: 'tool-call-end', runId, toolCallId: open.id };
  }

  *#model(event: ModelStreamEvent): Generator<StreamEvent> {
    const runId = this.#runId;
    switch (event.type) {
      case 'modelContentBlockStartEvent': {
        if (event.start?.type !== 'toolUseStart') return;
        yield* this.finish();
        const { toolUseId, name } = event.start;
        this.#toolNames.set(toolUseId, name);
        this.#open = { kind: 'tool', id: toolUseId };
        yield { type: 'tool-call-start', runId, toolCallId: toolUseId, toolName: name };
        return;
      }
      case 'modelContentBlockDeltaEvent': {
        const { delta } = event;
        if (delta.type === 'textDelta' && delta.text) {
          const id = yield* this.#opened('text');
          yield { type: 'text-delta', runId, messageId: id, delta: delta.text };
        } else if (delta.type === 'reasoningContentDelta' && delta.text) {
          const id = yield* this.#opened('reasoning');
          yield { type: 'reasoning-delta', runId, reasoningId: id, delta: delta.text };
        } else if (delta.type === 'toolUseInputDelta' && delta.input) {
          if (this.#open?.kind !== 'tool') return;
          yield { type: 'tool-call-args', runId, toolCallId: this.#open.id, delta: delta.input };
        }
        return;
      }
      case 'modelContentBlockStopEvent':
        yield* this.finish();
        return;
      case 'modelMetadataEvent':
        if (event.usage) this.#addUsage(event.usage);
        return;
      default:
        return;
    }
  }

  *#opened(kind: 'text' | 'reasoning'): Generator<StreamEvent, string> {
    if (this.#open?.kind === kind) return this.#open.id;
    yield* this.finish();
    this.#blocks += 1;
    const id = `${this.#runId}-${kind === 'text' ? 'msg' : 'reasoning'}-${this.#blocks}`;
    this.#open = { kind, id };
    yield kind === 'text'
      ? { type: 'message-start', runId: this.#runId, messageId: id }
      : { type: 'reasoning-start', runId: this.#runId, reasoningId: id };
    return id;
  }

  #result(block: ToolResultBlock): StreamEvent {
    const result = resultValue(block);
    return {
      type: 'tool-call-result',
      runId: this.#runId,
      toolCallId: block.toolUseId,
      toolName: this.#toolNames.get(block.toolUseId) ?? '',
      result,
      ...(block.status === 'error' || isModelVisibleError(result) ? { isError: true } : {}),
    };
  }

  #addUsage(usage: { inputTokens: number; outputTokens: number }): void {
    const add = (u: Usage | undefined): Usage => ({
      inputTokens: (u?.inputTokens ?? 0) + usage.inputTokens,
      outputTokens: (u?.outputTokens ?? 0) + usage.outputTokens,
    });
    this.#stepUsage = add(this.#stepUsage);
    this.usage = add(this.usage);
  }

  #stepId(): string {
    return `${this.#runId}-step-${this.#step}`;
  }
}

/** A tool result's content as one value: a lone JSON or text block as itself. */
export function resultValue(block: ToolResultBlock): unknown {
  const values = block.content.map((part) => {
    if (part.type === 'jsonBlock') return part.json;
    if (part.type === 'textBlock') return part.text;
    return part.toJSON();
  });
  return values.length === 1 ? values[0] : values;
}
