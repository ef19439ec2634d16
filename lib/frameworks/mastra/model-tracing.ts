import { type Span, startChildSpan } from '../../core/tracer.js';
import { providerModelEndpoint } from '../base/model-endpoint.js';
import {
  type CallOptions,
  type GenerateResult,
  type ModelLayer,
  type ModelUsage,
  type ModelV3,
  type StreamPart,
  tokens,
} from './model.js';

/**
 * The model spans of one Mastra run: a layer that opens a `model` span (a child of the active
 * span: the run's) per model call, with the model id and token usage. A streamed call's span ends
 * when its stream finishes, fails or is cancelled; `close()` ends whatever a run left open.
 */
export class MastraModelSpans implements ModelLayer {
  readonly #open = new Set<Span>();
  /**
   * The agent's configured model, whose URL Mastra's wrapper hides: where its calls go
   * (`server.address`), when it is a provider model with one.
   */
  configured: unknown;

  async generate(
    model: ModelV3,
    options: CallOptions,
    next: () => Promise<GenerateResult>,
  ): Promise<GenerateResult> {
    const span = this.#start(model, options, false);
    try {
      const result = await next();
      recordUsage(span, result.usage);
      span.setPayload('output', () => summary(result.content));
      return result;
    } catch (err) {
      span.recordError(err);
      throw err;
    } finally {
      this.#end(span);
    }
  }

  async stream(model: ModelV3, options: CallOptions, next: () => Promise<StreamResultLike>) {
    const span = this.#start(model, options, true);
    let result: StreamResultLike;
    try {
      result = await next();
    } catch (err) {
      span.recordError(err);
      this.#end(span);
      throw err;
    }
    return { ...result, stream: this.#observe(result.stream, span) };
  }

  /** Ends the spans still open (an aborted or abandoned run); an abort is their error. */
  close(signal?: AbortSignal): void {
    for (const span of this.#open) {
      if (signal?.aborted) span.recordError(signal.reason);
      span.end();
    }
    this.#open.clear();
  }

  #start(model: ModelV3, options: CallOptions, streamed: boolean): Span {
    const span = startChildSpan('model', 'model', {
      model: model.modelId,
      provider: model.provider,
      ...(streamed ? { streamed } : {}),
      ...providerModelEndpoint(this.configured ?? model),
    });
    span.setPayload('input', () => promptSummary(options.prompt));
    this.#open.add(span);
    return span;
  }

  #end(span: Span): void {
    if (this.#open.delete(span)) span.end();
  }

  /** The same parts, read through: usage from `finish`, errors from `error` parts. */
  #observe(source: ReadableStream<StreamPart>, span: Span): ReadableStream<StreamPart> {
    const reader = source.getReader();
    const parts: StreamPart[] = [];
    const end = () => {
      if (!this.#open.has(span)) return;
      span.setPayload('output', () => summary(parts));
      this.#end(span);
    };
    return new ReadableStream<StreamPart>({
      pull: async (controller) => {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (err) {
          span.recordError(err);
          end();
          throw err;
        }
        if (next.done) {
          end();
          controller.close();
          return;
        }
        const part = next.value;
        if (part.type === 'text-delta' || part.type === 'tool-call') parts.push(part);
        else if (part.type === 'finish') recordUsage(span, part.usage as ModelUsage | undefined);
        else if (part.type === 'error') span.recordError(part.error);
        controller.enqueue(part);
      },
      cancel: async (reason) => {
        end();
        await reader.cancel(reason);
      },
    });
  }
}

type StreamResultLike = { stream: ReadableStream<StreamPart>; [key: string]: unknown };

function recordUsage(span: Span, usage: ModelUsage | undefined): void {
  span.setAttributes({
    inputTokens: tokens(usage?.inputTokens),
    outputTokens: tokens(usage?.outputTokens),
  });
}

/**
 * What a trace keeps of a prompt: roles and text, tool calls by name and id, tool results by id.
 * Tool-call arguments are left out: the tool span records them, with sensitive paths applied.
 */
function promptSummary(prompt: CallOptions['prompt']): unknown {
  return prompt.map((message) => {
    if (typeof message.content === 'string') return { role: message.role, text: message.content };
    const out: Record<string, unknown> = { role: message.role };
    const parts = message.content;
    const text = parts
      .map((p) => (p.type === 'text' || p.type === 'reasoning' ? String(p.text ?? '') : ''))
      .join('');
    if (text) out.text = text;
    const calls = parts.flatMap((p) =>
      p.type === 'tool-call' ? [{ name: p.toolName, callId: p.toolCallId }] : [],
    );
    if (calls.length > 0) out.calls = calls;
    const results = parts.flatMap((p) =>
      p.type === 'tool-result' ? [{ callId: p.toolCallId, output: p.output }] : [],
    );
    if (results.length > 0) out.results = results;
    return out;
  });
}

/** A response's text and tool calls (from generated content or streamed parts). */
function summary(parts: readonly StreamPart[]): unknown {
  const text = parts
    .map((p) =>
      p.type === 'text'
        ? String(p.text ?? '')
        : p.type === 'text-delta'
          ? String(p.delta ?? '')
          : '',
    )
    .join('');
  const calls = parts.flatMap((p) =>
    p.type === 'tool-call' ? [{ name: p.toolName, callId: p.toolCallId }] : [],
  );
  return [{ role: 'assistant', text, calls }];
}
