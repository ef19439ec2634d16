import type { LanguageModel, LanguageModelMiddleware } from 'ai';
import { activeSpan, type Span, startChildSpan } from '../../core/tracer.js';
import { providerModelEndpoint } from '../base/model-endpoint.js';
import { wrapped } from './model-journal.js';

// The provider-level (v4) types, derived from `ai` so no undeclared package is imported.
type WrapStreamOptions = Parameters<NonNullable<LanguageModelMiddleware['wrapStream']>>[0];
type ProviderModel = WrapStreamOptions['model'];
type CallOptions = WrapStreamOptions['params'];
type StreamResult = Awaited<ReturnType<WrapStreamOptions['doStream']>>;
type GenerateResult = Awaited<ReturnType<WrapStreamOptions['doGenerate']>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;
type ModelUsage = GenerateResult['usage'];

/**
 * The model spans of one AI SDK run: `model()` wraps the agent's model in a middleware that opens
 * a `model` span (a child of the active span: the run's) per `doGenerate` / `doStream` call, with
 * the model id and token usage. A streamed call's span ends when its stream finishes, fails or is
 * cancelled; `close()` ends whatever a run left open (an abandoned stream).
 */
export class AiSdkModelSpans {
  readonly #open = new Set<Span>();
  readonly #middleware: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const span = this.#start(model, params, false);
      try {
        const result = await doGenerate();
        recordUsage(span, result.usage);
        span.setPayload('output', () => contentSummary(result.content));
        return result;
      } catch (err) {
        span.recordError(err);
        throw err;
      } finally {
        this.#end(span);
      }
    },
    wrapStream: async ({ doStream, params, model }) => {
      const span = this.#start(model, params, true);
      let result: StreamResult;
      try {
        result = await doStream();
      } catch (err) {
        span.recordError(err);
        this.#end(span);
        throw err;
      }
      return { ...result, stream: this.#observe(result.stream, span) };
    },
  };

  /**
   * The model to pass to the SDK, called in the run's async context (model ids and older
   * provider versions as `wrapped` takes them).
   */
  model(model: LanguageModel): LanguageModel {
    // Not traced (the no-op tracer): the model as given, at no cost.
    if (!activeSpan()) return model;
    return wrapped(model, this.#middleware);
  }

  /**
   * Ends the spans still open (an aborted or abandoned run); an abort is their error. The run's
   * signal is read only then: a turn's own signal is made when first read (TurnAbort).
   */
  close(run?: { readonly signal?: AbortSignal }): void {
    if (this.#open.size === 0) return;
    const signal = run?.signal;
    for (const span of this.#open) {
      if (signal?.aborted) span.recordError(signal.reason);
      span.end();
    }
    this.#open.clear();
  }

  #start(model: ProviderModel, params: CallOptions, streamed: boolean): Span {
    const span = startChildSpan('model', 'model', {
      model: model.modelId,
      provider: model.provider,
      ...(streamed ? { streamed } : {}),
      ...providerModelEndpoint(model),
    });
    span.setPayload('input', () => promptSummary(params.prompt));
    this.#open.add(span);
    return span;
  }

  #end(span: Span): void {
    if (this.#open.delete(span)) span.end();
  }

  /** The same parts, read through: usage from `finish`, errors from `error` parts. */
  #observe(source: ReadableStream<StreamPart>, span: Span): ReadableStream<StreamPart> {
    const reader = source.getReader();
    const text: string[] = [];
    const calls: { name: string; callId: string }[] = [];
    const end = () => {
      if (!this.#open.has(span)) return;
      span.setPayload('output', () => [{ role: 'assistant', text: text.join(''), calls }]);
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
        if (part.type === 'text-delta') text.push(part.delta);
        else if (part.type === 'tool-call')
          calls.push({ name: part.toolName, callId: part.toolCallId });
        else if (part.type === 'finish') recordUsage(span, part.usage);
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

function recordUsage(span: Span, usage: ModelUsage | undefined): void {
  span.setAttributes({
    inputTokens: usage?.inputTokens.total,
    outputTokens: usage?.outputTokens.total,
  });
}

/**
 * What a trace keeps of a prompt: roles and text, tool calls by name and id, tool results by id.
 * Tool-call arguments are left out: the tool span records them, with sensitive paths applied.
 */
function promptSummary(prompt: CallOptions['prompt']): unknown {
  return prompt.map((message) => {
    if (typeof message.content === 'string') return { role: message.role, text: message.content };
    const summary: Record<string, unknown> = { role: message.role };
    const text = message.content
      .map((part) => (part.type === 'text' || part.type === 'reasoning' ? part.text : ''))
      .join('');
    if (text) summary.text = text;
    const calls = message.content.flatMap((part) =>
      part.type === 'tool-call' ? [{ name: part.toolName, callId: part.toolCallId }] : [],
    );
    if (calls.length > 0) summary.calls = calls;
    const results = message.content.flatMap((part) =>
      part.type === 'tool-result' ? [{ callId: part.toolCallId, output: part.output }] : [],
    );
    if (results.length > 0) summary.results = results;
    return summary;
  });
}

function contentSummary(content: GenerateResult['content']): unknown {
  const text = content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  const calls = content.flatMap((part) =>
    part.type === 'tool-call' ? [{ name: part.toolName, callId: part.toolCallId }] : [],
  );
  return [{ role: 'assistant', text, calls }];
}
