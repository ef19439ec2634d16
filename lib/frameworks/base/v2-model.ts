/**
 * An AI SDK v2 (AI SDK 5 provider) model seen as a v3 one, converted the way the AI SDK 6 itself
 * adapts it (`asLanguageModelV3`: finish reason and usage change shape, every other part is the
 * same): so the run journal and the model spans, which speak v3, wrap a v2 model too. Typed
 * structurally, so no AI SDK package is imported here.
 */
interface V2Model {
  readonly specificationVersion: 'v2';
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: unknown): PromiseLike<Record<string, unknown>>;
  doStream(
    options: unknown,
  ): PromiseLike<{ stream: ReadableStream<StreamPart> } & Record<string, unknown>>;
}

/** A part of a model's stream; only `finish` parts change between v2 and v3. */
type StreamPart = {
  readonly type?: unknown;
  readonly finishReason?: unknown;
  readonly usage?: unknown;
} | null;

export function isModelV2(model: unknown): model is V2Model {
  const m = model as Partial<V2Model> | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.specificationVersion === 'v2' &&
    typeof m.doStream === 'function' &&
    typeof m.doGenerate === 'function'
  );
}

/** The v3 view of a v2 model (a proxy: its own properties and methods stay reachable). */
export function v2AsV3<T>(model: V2Model): T {
  return new Proxy(model, {
    get(target, prop) {
      if (prop === 'specificationVersion') return 'v3';
      if (prop === 'doGenerate') {
        return async (options: unknown) => {
          const result = await target.doGenerate(options);
          return {
            ...result,
            finishReason: finishReasonV3(result.finishReason),
            usage: usageV3(result.usage),
          };
        };
      }
      if (prop === 'doStream') {
        return async (options: unknown) => {
          const result = await target.doStream(options);
          return { ...result, stream: result.stream.pipeThrough(finishV3()) };
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as unknown as T;
}

function finishV3(): TransformStream<StreamPart, StreamPart> {
  return new TransformStream({
    transform(part, controller) {
      if (part?.type !== 'finish') return controller.enqueue(part);
      controller.enqueue({
        ...part,
        finishReason: finishReasonV3(part.finishReason),
        usage: usageV3(part.usage),
      });
    },
  });
}

function finishReasonV3(reason: unknown): { unified: unknown; raw: undefined } {
  return { unified: reason === 'unknown' ? 'other' : reason, raw: undefined };
}

type UsageV2 = {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
};

function usageV3(given: unknown) {
  const usage = (given ?? {}) as UsageV2;
  return {
    inputTokens: {
      total: usage.inputTokens,
      noCache: undefined,
      cacheRead: usage.cachedInputTokens,
      cacheWrite: undefined,
    },
    outputTokens: { total: usage.outputTokens, text: undefined, reasoning: usage.reasoningTokens },
    raw: usage.totalTokens == null ? undefined : { totalTokens: usage.totalTokens },
  };
}
