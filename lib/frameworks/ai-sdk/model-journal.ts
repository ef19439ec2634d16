import { gateway, type LanguageModel, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import { modelRequestKey } from '../../core/model-step.js';
import { historyRequestKey } from '../../core/request-key.js';
import { tryToolContext } from '../../core/tool-context.js';
import { journaledGenerate, journaledStream } from '../base/v3-journal.js';

type WrapStreamOptions = Parameters<NonNullable<LanguageModelMiddleware['wrapStream']>>[0];
type CallOptions = WrapStreamOptions['params'];
type ResolvedModel = Parameters<typeof wrapLanguageModel>[0]['model'];

/**
 * The agent's model behind the run's journal (a `wrapLanguageModel` middleware): a call whose
 * response an earlier attempt recorded is answered from the journal, a generated result or a
 * stream of the recorded parts, without calling the model (so call ids stay the same). A fresh
 * response that calls tools is recorded before the SDK may run them: `streamText` executes a
 * tool as soon as its `tool-call` part arrives, so a stream is held back from a tool call's first
 * part to its end, recorded, then released. Without a journal the model is returned as given.
 */
export function journaledModel(model: LanguageModel): LanguageModel {
  if (!tryToolContext()?.journal) return model;
  return wrapped(model, JOURNAL_MIDDLEWARE);
}

const WRAPPABLE = new Set(['v2', 'v3', 'v4']);

/**
 * The model behind a middleware. A model id resolves through the SDK's global provider, as the
 * SDK would; `wrapLanguageModel` sees a v2 (AI SDK 5) or v3 (AI SDK 6) provider's model as the
 * v4 one the SDK makes of it, so the journal and the spans wrap those too (without it, a retried
 * run asked the model again and got fresh call ids: its tools ran again). Any other version is
 * one the SDK refuses itself (UnsupportedModelVersionError), so it is returned as given.
 */
export function wrapped(model: LanguageModel, middleware: LanguageModelMiddleware): LanguageModel {
  const resolved: ResolvedModel =
    typeof model === 'string'
      ? (globalThis.AI_SDK_DEFAULT_PROVIDER ?? gateway).languageModel(model)
      : model;
  if (!WRAPPABLE.has(resolved.specificationVersion)) return resolved;
  return wrapLanguageModel({ model: resolved, middleware });
}

const JOURNAL_MIDDLEWARE: LanguageModelMiddleware = {
  specificationVersion: 'v4',
  wrapGenerate: async ({ doGenerate, params }) => {
    const journal = tryToolContext()?.journal;
    return journal
      ? journaledGenerate(journal, keyOf(params), doGenerate, () => legacyKeyOf(params))
      : doGenerate();
  },
  wrapStream: async ({ doStream, params }) => {
    const journal = tryToolContext()?.journal;
    return journal
      ? journaledStream(journal, keyOf(params), doStream, () => legacyKeyOf(params))
      : doStream();
  },
};

/**
 * What decides the model's answer and is the same on every attempt: the prompt (system,
 * history, earlier responses and replayed tool results) and the tools offered.
 */
function keyOf(params: CallOptions): string {
  return historyRequestKey(
    'ai-sdk',
    { tools: (params.tools ?? []).map((tool) => tool.name) },
    params.prompt,
  );
}

/** The key the build before chained keys gave this request (a journal it wrote replays). */
function legacyKeyOf(params: CallOptions): string {
  return modelRequestKey(
    { prompt: params.prompt, tools: (params.tools ?? []).map((tool) => tool.name) },
    'ai-sdk',
  );
}
