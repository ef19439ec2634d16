import { AsyncLocalStorage } from 'node:async_hooks';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { BaseMessage } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import { activeSpan, type Span, startChildSpan } from '../../core/tracer.js';

type Serialized = Parameters<NonNullable<BaseCallbackHandler['handleLLMStart']>>[0];
type Extra = Record<string, unknown> | undefined;

/**
 * The model spans of one LangGraph run: a LangChain callback handler, passed in the run's config
 * (LangGraph hands it to every chat model the graph calls), that opens a `model` span per model
 * call (by LangChain's run id) with the model name and token usage. Its handlers are awaited, so a
 * span opens in the caller's async context (under the run's span, or a tool's) and ends before
 * the run does; `close()` ends whatever a run left open (an abort LangChain did not report).
 */
export class LangGraphModelSpans extends BaseCallbackHandler {
  readonly name = 'agent-kernel-model-spans';
  readonly #spans = new Map<string, Span>();
  /** The run's async context, for a callback that arrives outside it. */
  readonly #inRun = AsyncLocalStorage.snapshot();

  constructor() {
    // Only model callbacks: LangChain would otherwise call (and await) it for every node.
    super({
      _awaitHandler: true,
      ignoreChain: true,
      ignoreAgent: true,
      ignoreRetriever: true,
      ignoreCustomEvent: true,
    });
  }

  override handleChatModelStart(
    llm: Serialized,
    messages: BaseMessage[][],
    runId: string,
    _parentRunId?: string,
    extraParams?: Extra,
    _tags?: string[],
    metadata?: Extra,
  ): void {
    const span = this.#start(runId, llm, extraParams, metadata);
    span.setPayload('input', () => messages.flat().map(summariseMessage));
  }

  override handleLLMStart(
    llm: Serialized,
    prompts: string[],
    runId: string,
    _parentRunId?: string,
    extraParams?: Extra,
    _tags?: string[],
    metadata?: Extra,
  ): void {
    const span = this.#start(runId, llm, extraParams, metadata);
    span.setPayload('input', () => prompts.map((text) => ({ role: 'user', text })));
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const span = this.#take(runId);
    if (!span) return;
    const usage = usageOf(output);
    span.setAttributes({ inputTokens: usage.input, outputTokens: usage.output });
    span.setPayload('output', () =>
      output.generations.flat().map((generation) => {
        const message = (generation as { message?: BaseMessage }).message;
        return message ? summariseMessage(message) : { role: 'assistant', text: generation.text };
      }),
    );
    span.end();
  }

  override handleLLMError(err: unknown, runId: string): void {
    const span = this.#take(runId);
    if (!span) return;
    span.recordError(err);
    span.end();
  }

  /** Ends the spans still open; an abort is their error. */
  close(signal?: AbortSignal): void {
    for (const span of this.#spans.values()) {
      if (signal?.aborted) span.recordError(signal.reason);
      span.end();
    }
    this.#spans.clear();
  }

  #start(runId: string, llm: Serialized, extra: Extra, metadata: Extra): Span {
    const attributes = {
      model: modelName(llm, extra, metadata),
      provider: str(metadata?.ls_provider),
    };
    const open = () => startChildSpan('model', 'model', attributes);
    const span = activeSpan() ? open() : this.#inRun(open);
    this.#spans.get(runId)?.end();
    this.#spans.set(runId, span);
    return span;
  }

  #take(runId: string): Span | undefined {
    const span = this.#spans.get(runId);
    this.#spans.delete(runId);
    return span;
  }
}

/** LangChain's standard metadata names the model; else the invocation parameters, the class. */
function modelName(llm: Serialized, extra: Extra, metadata: Extra): string {
  const params = extra?.invocation_params as Record<string, unknown> | undefined;
  return (
    str(metadata?.ls_model_name) ??
    str(params?.model) ??
    str(params?.model_name) ??
    str(params?.modelName) ??
    llm.id.at(-1) ??
    'unknown'
  );
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

interface UsageMetadata {
  input_tokens?: number;
  output_tokens?: number;
}

/** The messages' standard `usage_metadata`, else the provider's `llmOutput.tokenUsage`. */
function usageOf(output: LLMResult): { input?: number; output?: number } {
  let input: number | undefined;
  let out: number | undefined;
  for (const generation of output.generations.flat()) {
    const usage = (generation as { message?: { usage_metadata?: UsageMetadata } }).message
      ?.usage_metadata;
    if (!usage) continue;
    input = (input ?? 0) + (usage.input_tokens ?? 0);
    out = (out ?? 0) + (usage.output_tokens ?? 0);
  }
  if (input !== undefined || out !== undefined) return { input, output: out };
  const tokenUsage = output.llmOutput?.tokenUsage as
    | { promptTokens?: number; completionTokens?: number }
    | undefined;
  return { input: tokenUsage?.promptTokens, output: tokenUsage?.completionTokens };
}

/**
 * What a trace keeps of a message: role and text, tool calls by name and id, a tool result by its
 * call id. Tool-call arguments are left out: the tool span records them, sensitive paths applied.
 */
function summariseMessage(message: BaseMessage): Record<string, unknown> {
  const summary: Record<string, unknown> = { role: message.type, text: message.text };
  const calls = (message as { tool_calls?: { name: string; id?: string }[] }).tool_calls;
  if (calls?.length) summary.calls = calls.map((call) => ({ name: call.name, callId: call.id }));
  const callId = (message as { tool_call_id?: string }).tool_call_id;
  if (callId) summary.callId = callId;
  return summary;
}
