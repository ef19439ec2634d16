import type { RunStreamEvent } from '@openai/agents';
import type { StreamEvent } from '../../core/events.js';
import type { Usage } from '../../core/requests.js';

/**
 * The fields this mapper reads of the SDK's stream payloads: the SDK's own events and the raw
 * wire JSON of either model API (typed `unknown` by the SDK), so one loose shape for all.
 */
interface Wire {
  readonly type?: string;
  readonly object?: string;
  readonly id: string;
  readonly call_id: string;
  readonly callId?: string;
  readonly item_id: string;
  readonly itemId?: unknown;
  readonly name?: string;
  readonly index: number;
  readonly delta?: string;
  readonly text?: string;
  readonly arguments?: unknown;
  readonly output?: unknown;
  readonly event?: Wire;
  readonly item?: Wire;
  readonly response?: { readonly usage?: Wire };
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly content?: readonly Wire[];
  readonly choices?: readonly { readonly delta?: { readonly tool_calls?: readonly Wire[] } }[];
  readonly function?: { readonly name?: string; readonly arguments?: string };
}

/** A run item: the SDK's item around the raw one (with the tool's output on `tool_output`). */
interface WireItem {
  readonly rawItem?: unknown;
  readonly output?: unknown;
}

/**
 * Maps the SDK's stream (raw model events and run items) onto our events. Ids are the SDK's:
 * message item ids, function call `call_id`s. Message boundaries open only once text arrives.
 * Works for both the Responses and the Chat Completions models.
 */
export class OpenAIEventMapper {
  readonly #runId: string;
  #step = 0;
  #stepId: string | undefined;
  readonly #openMessages = new Set<string>();
  readonly #openReasoning = new Set<string>();
  readonly #openTools = new Set<string>();
  /** Every call id and reasoning id seen, so run items don't repeat what streamed. */
  readonly #seenTools = new Set<string>();
  readonly #seenReasoning = new Set<string>();
  /** Responses API: function call item id → call_id; Chat: tool call index → id. */
  readonly #callIdByItem = new Map<string, string>();
  readonly #callIdByIndex = new Map<number, string>();
  #textInStep = false;

  constructor(runId: string) {
    this.#runId = runId;
  }

  map(event: RunStreamEvent): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (event.type === 'raw_model_stream_event') this.#raw(event.data as Wire, out);
    else if (event.type === 'run_item_stream_event')
      this.#item(event.name, event.item as WireItem, out);
    return out;
  }

  /**
   * A drained turn's events, from the items of a non-streaming run's result: whole messages,
   * reasoning and tool calls, as the stream's run items would give them without token deltas.
   */
  mapItems(items: readonly { readonly type: string }[]): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const item of items) {
      const name = RUN_ITEM_EVENTS[item.type];
      if (name) this.#item(name, item as WireItem, out);
    }
    return out;
  }

  /** Closes whatever a model stream left open (e.g. on an early end). */
  finish(): StreamEvent[] {
    const out: StreamEvent[] = [];
    this.#closeStep(out, undefined);
    return out;
  }

  #raw(data: Wire, out: StreamEvent[]): void {
    const runId = this.#runId;
    switch (data.type) {
      case 'response_started': {
        this.#closeStep(out, undefined);
        this.#step += 1;
        this.#stepId = `${runId}:step:${this.#step}`;
        this.#textInStep = false;
        out.push({ type: 'step-start', runId, stepId: this.#stepId });
        return;
      }
      case 'output_text_delta': {
        const messageId =
          typeof data.itemId === 'string' ? data.itemId : `${runId}:message:${this.#step}`;
        if (!this.#openMessages.has(messageId)) {
          this.#openMessages.add(messageId);
          out.push({ type: 'message-start', runId, messageId });
        }
        this.#textInStep = true;
        out.push({ type: 'text-delta', runId, messageId, delta: String(data.delta) });
        return;
      }
      case 'response_done': {
        const usage = data.response?.usage as Wire | undefined;
        this.#closeStep(
          out,
          usage
            ? { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 }
            : undefined,
        );
        return;
      }
      case 'model': {
        const raw = data.event as Wire | undefined;
        if (!raw) return;
        if (raw.object === 'chat.completion.chunk') this.#chatChunk(raw, out);
        else if (typeof raw.type === 'string') this.#responsesEvent(raw, out);
        return;
      }
      default:
        return;
    }
  }

  #responsesEvent(raw: Wire, out: StreamEvent[]): void {
    const runId = this.#runId;
    const item = raw.item as Wire | undefined;
    switch (raw.type) {
      case 'response.output_item.added':
        if (item?.type === 'function_call') {
          // A function call item always names its function.
          this.#callIdByItem.set(item.id, item.call_id);
          this.#startTool(item.call_id, item.name as string, out);
        }
        return;
      case 'response.function_call_arguments.delta': {
        const toolCallId = this.#callIdByItem.get(raw.item_id);
        if (toolCallId && raw.delta)
          out.push({ type: 'tool-call-args', runId, toolCallId, delta: raw.delta });
        return;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        const reasoningId = String(raw.item_id);
        if (!this.#openReasoning.has(reasoningId)) {
          this.#openReasoning.add(reasoningId);
          this.#seenReasoning.add(reasoningId);
          out.push({ type: 'reasoning-start', runId, reasoningId });
        }
        out.push({ type: 'reasoning-delta', runId, reasoningId, delta: String(raw.delta) });
        return;
      }
      case 'response.output_item.done':
        if (item?.type === 'function_call') this.#endTool(item.call_id, out);
        else if (item?.type === 'message') this.#endMessage(item.id, out);
        else if (item?.type === 'reasoning') this.#endReasoning(item.id, out);
        return;
      default:
        return;
    }
  }

  #chatChunk(chunk: Wire, out: StreamEvent[]): void {
    const calls = chunk.choices?.[0]?.delta?.tool_calls as Wire[] | undefined;
    if (!calls) return;
    for (const call of calls) {
      let toolCallId = this.#callIdByIndex.get(call.index);
      if (!toolCallId && typeof call.id === 'string') {
        toolCallId = call.id;
        this.#callIdByIndex.set(call.index, call.id);
        this.#startTool(call.id, call.function?.name ?? '', out);
      }
      const delta = call.function?.arguments;
      if (toolCallId && delta)
        out.push({ type: 'tool-call-args', runId: this.#runId, toolCallId, delta });
    }
  }

  #item(name: string, item: WireItem, out: StreamEvent[]): void {
    const runId = this.#runId;
    const raw = (item.rawItem ?? {}) as Wire;
    switch (name) {
      case 'tool_called': {
        const toolCallId = String(raw.callId ?? raw.id);
        if (!this.#seenTools.has(toolCallId)) {
          // The model did not stream this call (non-streaming provider): emit it whole.
          this.#startTool(toolCallId, String(raw.name ?? raw.type), out);
          if (typeof raw.arguments === 'string' && raw.arguments) {
            out.push({ type: 'tool-call-args', runId, toolCallId, delta: raw.arguments });
          }
        }
        this.#endTool(toolCallId, out);
        return;
      }
      case 'tool_output': {
        const toolCallId = String(raw.callId ?? raw.id);
        out.push({
          type: 'tool-call-result',
          runId,
          toolCallId,
          toolName: String(raw.name ?? ''),
          result: toJson(item.output),
        });
        return;
      }
      case 'reasoning_item_created': {
        const reasoningId = String(raw.id ?? `${runId}:reasoning:${this.#step}`);
        if (this.#seenReasoning.has(reasoningId)) return;
        const text = ((raw.content ?? []) as Wire[]).map((part) => part.text ?? '').join('');
        if (!text) return;
        this.#seenReasoning.add(reasoningId);
        out.push({ type: 'reasoning-start', runId, reasoningId });
        out.push({ type: 'reasoning-delta', runId, reasoningId, delta: text });
        out.push({ type: 'reasoning-end', runId, reasoningId });
        return;
      }
      case 'message_output_created': {
        if (this.#textInStep) return;
        const text = ((raw.content ?? []) as Wire[])
          .map((part) => (part.type === 'output_text' ? part.text : ''))
          .join('');
        if (!text) return;
        const messageId = String(raw.id ?? `${runId}:message:${this.#step}`);
        out.push({ type: 'message-start', runId, messageId });
        out.push({ type: 'text-delta', runId, messageId, delta: text });
        out.push({ type: 'message-end', runId, messageId });
        return;
      }
      default:
        return;
    }
  }

  #startTool(toolCallId: string, toolName: string, out: StreamEvent[]): void {
    if (this.#seenTools.has(toolCallId)) return;
    this.#seenTools.add(toolCallId);
    this.#openTools.add(toolCallId);
    out.push({ type: 'tool-call-start', runId: this.#runId, toolCallId, toolName });
  }

  #endTool(toolCallId: string, out: StreamEvent[]): void {
    if (this.#openTools.delete(toolCallId))
      out.push({ type: 'tool-call-end', runId: this.#runId, toolCallId });
  }

  #endMessage(messageId: string, out: StreamEvent[]): void {
    if (this.#openMessages.delete(messageId))
      out.push({ type: 'message-end', runId: this.#runId, messageId });
  }

  #endReasoning(reasoningId: string, out: StreamEvent[]): void {
    if (this.#openReasoning.delete(reasoningId)) {
      out.push({ type: 'reasoning-end', runId: this.#runId, reasoningId });
    }
  }

  #closeStep(out: StreamEvent[], usage: Usage | undefined): void {
    for (const id of [...this.#openReasoning]) this.#endReasoning(id, out);
    for (const id of [...this.#openMessages]) this.#endMessage(id, out);
    for (const id of [...this.#openTools]) this.#endTool(id, out);
    this.#callIdByIndex.clear();
    if (this.#stepId) {
      out.push({
        type: 'step-end',
        runId: this.#runId,
        stepId: this.#stepId,
        ...(usage ? { usage } : {}),
      });
      this.#stepId = undefined;
    }
  }
}

/** Result item types → the names of the stream's run item events that carry them. */
const RUN_ITEM_EVENTS: Record<string, string> = {
  message_output_item: 'message_output_created',
  tool_call_item: 'tool_called',
  tool_call_output_item: 'tool_output',
  reasoning_item: 'reasoning_item_created',
};

/** Tool outputs are usually strings; anything else must survive JSON. */
function toJson(value: unknown): unknown {
  if (value === undefined || typeof value === 'string') return value ?? null;
  try {
    return JSON.parse(JSON.stringify(value));
  } catch {
    return String(value);
  }
}
