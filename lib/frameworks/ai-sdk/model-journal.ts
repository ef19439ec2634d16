import { gateway, type LanguageModel, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import type { RunJournal } from '../../core/journal.js';
import { asJson, modelRequestKey } from '../../core/model-step.js';
import type { JsonValue } from '../../core/session.js';
import { tryToolContext } from '../../core/tool-context.js';

type WrapStreamOptions = Parameters<NonNullable<LanguageModelMiddleware['wrapStream']>>[0];
type CallOptions = WrapStreamOptions['params'];
type StreamResult = Awaited<ReturnType<WrapStreamOptions['doStream']>>;
type GenerateResult = Awaited<ReturnType<WrapStreamOptions['doGenerate']>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

/** A model response as the journal keeps it: a streamed call's parts or a generated result. */
type Recorded = { stream: StreamPart[] } | { generate: GenerateResult };

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
    if (!journal) return doGenerate();
    const key = keyOf(params);
    const recorded = journal.recordedModel(key) as Recorded | undefined;
    // The runner always streams; a generated result is kept for a caller that generates.
    if (recorded && 'generate' in recorded) return reviveGenerate(recorded.generate);
    const result = await doGenerate();
    if (result.content.some((part) => part.type === 'tool-call')) {
      const { request: _request, ...kept } = result;
      const response = kept.response && { ...kept.response, body: undefined, headers: undefined };
      await journal.recordModel(key, asJson<JsonValue>({ generate: { ...kept, response } }));
    }
    return result;
  },
  wrapStream: async ({ doStream, params }) => {
    const journal = tryToolContext()?.journal;
    if (!journal) return doStream();
    const key = keyOf(params);
    const recorded = journal.recordedModel(key) as Recorded | undefined;
    if (recorded && 'stream' in recorded) return { stream: replay(recorded.stream) };
    const result = await doStream();
    return { ...result, stream: recordOnToolCall(result.stream, journal, key) };
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

/** Passes parts through until the first tool call; from there holds them, records, releases. */
function recordOnToolCall(
  source: ReadableStream<StreamPart>,
  journal: RunJournal,
  key: string,
): ReadableStream<StreamPart> {
  const reader = source.getReader();
  const parts: StreamPart[] = [];
  const held: StreamPart[] = [];
  let holding = false;
  let failed = false;
  return new ReadableStream<StreamPart>({
    pull: async (controller) => {
      for (;;) {
        const next = await reader.read();
        if (next.done) {
          if (holding && !failed)
            await journal.recordModel(key, asJson<JsonValue>({ stream: compact(parts) }));
          for (const part of held) controller.enqueue(part);
          controller.close();
          return;
        }
        const part = next.value;
        if (part.type !== 'raw') parts.push(part);
        if (part.type === 'error') failed = true;
        if (part.type === 'tool-call') holding = true;
        if (!holding) {
          controller.enqueue(part);
          return;
        }
        held.push(part);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** Consecutive deltas of one text, reasoning or tool input merged: a smaller journal entry. */
function compact(parts: readonly StreamPart[]): StreamPart[] {
  const out: StreamPart[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (
      last &&
      (part.type === 'text-delta' ||
        part.type === 'reasoning-delta' ||
        part.type === 'tool-input-delta') &&
      last.type === part.type &&
      last.id === part.id &&
      !part.providerMetadata
    ) {
      out[out.length - 1] = { ...last, delta: last.delta + part.delta };
    } else out.push(part);
  }
  return out;
}

function replay(parts: readonly StreamPart[]): ReadableStream<StreamPart> {
  return new ReadableStream<StreamPart>({
    start(controller) {
      for (const part of parts) {
        if (part.type === 'response-metadata' && part.timestamp) {
          controller.enqueue({ ...part, timestamp: new Date(part.timestamp) });
        } else controller.enqueue(part);
      }
      controller.close();
    },
  });
}

function reviveGenerate(result: GenerateResult): GenerateResult {
  const timestamp = result.response?.timestamp;
  if (!result.response || !timestamp) return result;
  return { ...result, response: { ...result.response, timestamp: new Date(timestamp) } };
}
