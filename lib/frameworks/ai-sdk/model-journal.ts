import { gateway, type LanguageModel, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import { modelRequestKey } from '../../core/model-step.js';
import { tryToolContext } from '../../core/tool-context.js';
import { isModelV2, v2AsV3 } from '../base/v2-model.js';
import { journaledGenerate, journaledStream } from '../base/v3-journal.js';

type WrapStreamOptions = Parameters<NonNullable<LanguageModelMiddleware['wrapStream']>>[0];
type CallOptions = WrapStreamOptions['params'];
type ResolvedModel = Parameters<typeof wrapLanguageModel>[0]['model'];

/**
 * The agent's model behind the run's journal (a `wrapLanguageModel` middleware): a call whose
 * response an earlier attempt recorded is answered from the journal, a generated result or a
 * stream of the recorded parts, without calling the model (so call ids stay the same). A fresh
 * response that calls tools is recorded before the SDK may run them: `streamText` executes a
 * tool as soon as its `tool-call` part arrives, so a stream is held back from its first tool call
 * to its end, recorded, then released. Without a journal the model is returned as given.
 */
export function journaledModel(model: LanguageModel): LanguageModel {
  if (!tryToolContext()?.journal) return model;
  const resolved =
    typeof model === 'string'
      ? (globalThis.AI_SDK_DEFAULT_PROVIDER ?? gateway).languageModel(model)
      : model;
  const v3 = asV3(resolved) as ResolvedModel;
  // Any other version is one the SDK refuses itself (UnsupportedModelVersionError).
  if (v3.specificationVersion !== 'v3') return v3;
  return wrapLanguageModel({ model: v3, middleware: JOURNAL_MIDDLEWARE });
}

/**
 * A v2 (AI SDK 5 provider) model as the v3 one the SDK would make of it, so that the journal's
 * and the spans' v3 middleware wrap it too (without it, a retried run asked the model again and
 * got fresh call ids: its tools ran again). Other models as given.
 */
export function asV3(model: LanguageModel): LanguageModel {
  return isModelV2(model) ? v2AsV3<LanguageModel>(model) : model;
}

const JOURNAL_MIDDLEWARE: LanguageModelMiddleware = {
  specificationVersion: 'v3',
  wrapGenerate: async ({ doGenerate, params }) => {
    const journal = tryToolContext()?.journal;
    return journal ? journaledGenerate(journal, keyOf(params), doGenerate) : doGenerate();
  },
  wrapStream: async ({ doStream, params }) => {
    const journal = tryToolContext()?.journal;
    return journal ? journaledStream(journal, keyOf(params), doStream) : doStream();
  },
};

/**
 * What decides the model's answer and is the same on every attempt: the prompt (system,
 * history, earlier responses and replayed tool results) and the tools offered.
 */
function keyOf(params: CallOptions): string {
  return modelRequestKey(
    {
      prompt: params.prompt,
      tools: (params.tools ?? []).map((tool) => tool.name),
    },
    'ai-sdk',
  );
}
