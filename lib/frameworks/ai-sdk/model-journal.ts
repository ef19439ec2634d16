import { gateway, type LanguageModel, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import { modelRequestKey } from '../../core/model-step.js';
import { tryToolContext } from '../../core/tool-context.js';
import { journaledGenerate, journaledStream } from '../base/v3-journal.js';

type WrapStreamOptions = Parameters<NonNullable<LanguageModelMiddleware['wrapStream']>>[0];
type CallOptions = WrapStreamOptions['params'];

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
  // A v2 (AI SDK 5) model cannot take a v3 middleware: it runs unjournaled.
  if (resolved.specificationVersion !== 'v3') return resolved;
  return wrapLanguageModel({ model: resolved, middleware: JOURNAL_MIDDLEWARE });
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
