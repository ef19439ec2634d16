import type { LanguageModel } from 'ai';

/**
 * The OpenAI provider's model seen through the v2 specification (AI SDK 5 providers): finish
 * reason a string, usage flat, every other part the same. No AI SDK 5 provider is installed, so
 * the v2 model is the real provider behind this view; it still talks HTTP to the scripted model.
 */
export function asV2(model: any): LanguageModel {
  const finishReason = (reason: any) => (reason?.unified === 'other' ? 'unknown' : reason?.unified);
  const usage = (u: any) => ({
    inputTokens: u?.inputTokens?.total,
    outputTokens: u?.outputTokens?.total,
    totalTokens: (u?.inputTokens?.total ?? 0) + (u?.outputTokens?.total ?? 0),
  });
  return {
    specificationVersion: 'v2',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: async (options: unknown) => {
      const result = await model.doGenerate(options);
      return {
        ...result,
        finishReason: finishReason(result.finishReason),
        usage: usage(result.usage),
      };
    },
    doStream: async (options: unknown) => {
      const result = await model.doStream(options);
      const toV2 = new TransformStream({
        transform(part: any, controller) {
          if (part.type !== 'finish') return controller.enqueue(part);
          const { finishReason: reason, usage: used, ...rest } = part;
          controller.enqueue({ ...rest, finishReason: finishReason(reason), usage: usage(used) });
        },
      });
      return { ...result, stream: result.stream.pipeThrough(toV2) };
    },
  } as unknown as LanguageModel;
}
