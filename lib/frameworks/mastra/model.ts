/**
 * The provider-level (AI SDK v3 spec) model Mastra calls, typed structurally: Mastra bundles its
 * own AI SDK copies, so no AI SDK package is imported here.
 */
export interface StreamPart {
  readonly type: string;
  readonly [key: string]: unknown;
}

export interface CallOptions {
  readonly prompt: readonly {
    role: string;
    content: string | readonly { type: string; [key: string]: unknown }[];
  }[];
  readonly tools?: readonly { name: string }[];
  readonly [key: string]: unknown;
}

export interface StreamResult {
  readonly stream: ReadableStream<StreamPart>;
  readonly [key: string]: unknown;
}

export interface GenerateResult {
  readonly content: readonly StreamPart[];
  readonly usage?: ModelUsage;
  readonly response?: { timestamp?: Date | string; [key: string]: unknown };
  readonly [key: string]: unknown;
}

export interface ModelUsage {
  readonly inputTokens?: { total?: number } | number;
  readonly outputTokens?: { total?: number } | number;
}

export interface ModelV3 {
  readonly specificationVersion: 'v3';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls?: unknown;
  doGenerate(options: CallOptions): PromiseLike<GenerateResult>;
  doStream(options: CallOptions): PromiseLike<StreamResult>;
}

/** What a wrapper changes: each call gets the model, its options and the next step. */
export interface ModelLayer {
  generate(
    model: ModelV3,
    options: CallOptions,
    next: () => Promise<GenerateResult>,
  ): Promise<GenerateResult>;
  stream(
    model: ModelV3,
    options: CallOptions,
    next: () => Promise<StreamResult>,
  ): Promise<StreamResult>;
}

export function isModelV3(model: unknown): model is ModelV3 {
  const m = model as Partial<ModelV3> | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.specificationVersion === 'v3' &&
    typeof m.doStream === 'function' &&
    typeof m.doGenerate === 'function'
  );
}

/** The model with one layer around its calls (the same id and provider, so Mastra sees no change). */
export function layered(model: ModelV3, layer: ModelLayer): ModelV3 {
  return {
    specificationVersion: 'v3',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (options) => layer.generate(model, options, async () => model.doGenerate(options)),
    doStream: (options) => layer.stream(model, options, async () => model.doStream(options)),
  };
}

export function tokens(count: { total?: number } | number | undefined): number | undefined {
  return typeof count === 'number' ? count : count?.total;
}
