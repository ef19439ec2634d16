import type { RunJournal } from '../../core/journal.js';
import { asJson } from '../../core/model-step.js';
import type { JsonValue } from '../../core/session.js';
import { generateOfStream, streamOfGenerate } from './v3-convert.js';

/**
 * The journal's side of an AI SDK v3 (provider spec) model, shared by the runners whose models
 * speak it (the AI SDK's, and Mastra's, which bundles its own AI SDK copies): typed structurally,
 * so no AI SDK package is imported here.
 */
export interface V3Part {
  readonly type: string;
  readonly id?: unknown;
  readonly delta?: unknown;
  readonly providerMetadata?: unknown;
  readonly timestamp?: unknown;
}

export interface V3Generated {
  readonly content: readonly { readonly type: string }[];
  readonly request?: unknown;
  readonly response?: { readonly timestamp?: unknown };
}

/** A model response as the journal keeps it: a streamed call's parts or a generated result. */
export type V3Recorded<P, G> = { stream: P[] } | { generate: G };

/** A generated result recorded when it calls tools (the SDK may run them right after). */
export async function journaledGenerate<G extends V3Generated>(
  journal: RunJournal,
  key: string,
  generate: () => PromiseLike<G>,
  legacyKey?: () => string,
): Promise<G> {
  const recorded = journal.recordedModel(key, legacyKey) as V3Recorded<V3Part, G> | undefined;
  // Either entry's record answers: a turn streamed first may be re-driven drained, and the reverse.
  if (recorded && 'generate' in recorded) return reviveGenerate(recorded.generate);
  if (recorded && 'stream' in recorded)
    return reviveGenerate(generateOfStream(recorded.stream) as unknown as G);
  const result = await generate();
  if (result.content.some((part) => part.type === 'tool-call')) {
    const { request: _request, ...kept } = result;
    const response = kept.response && { ...kept.response, body: undefined, headers: undefined };
    await journal.recordModel(key, asJson<JsonValue>({ generate: { ...kept, response } }));
  }
  return result;
}

/**
 * A recorded stream served again, or a fresh one held back from its first tool call to its end
 * and recorded before it is released: an SDK runs a tool as soon as its `tool-call` part arrives.
 */
export async function journaledStream<P extends V3Part, R extends { stream: ReadableStream<P> }>(
  journal: RunJournal,
  key: string,
  stream: () => PromiseLike<R>,
  legacyKey?: () => string,
): Promise<R | { stream: ReadableStream<P> }> {
  const recorded = journal.recordedModel(key, legacyKey) as V3Recorded<P, V3Generated> | undefined;
  if (recorded && 'stream' in recorded) return { stream: replay(recorded.stream) };
  if (recorded && 'generate' in recorded)
    return { stream: replay(streamOfGenerate(recorded.generate) as unknown as P[]) };
  const result = await stream();
  return { ...result, stream: recordOnToolCall(result.stream, journal, key) };
}

/**
 * A tool call's parts: Mastra runs a tool eagerly from `tool-input-end` (it makes its own call
 * from the input deltas), so holding from `tool-call` alone let a tool start before the step was
 * recorded whenever the stream's end arrived late.
 */
const TOOL_PARTS = new Set(['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call']);

/**
 * Passes parts through until the first part of a tool call; from there holds, records, releases
 * (a failed step's tool parts are dropped).
 */
function recordOnToolCall<P extends V3Part>(
  source: ReadableStream<P>,
  journal: RunJournal,
  key: string,
): ReadableStream<P> {
  const reader = source.getReader();
  const parts: P[] = [];
  const held: P[] = [];
  let holding = false;
  let failed = false;
  return new ReadableStream<P>({
    pull: async (controller) => {
      for (;;) {
        const next = await reader.read();
        if (next.done) {
          if (holding && !failed)
            await journal.recordModel(key, asJson<JsonValue>({ stream: compact(parts) }));
          // A failed step is not recorded, so its re-drive asks again and gets new call ids:
          // none of this step's calls may run (the SDKs run none today; this keeps it so).
          for (const part of held)
            if (!failed || !TOOL_PARTS.has(part.type)) controller.enqueue(part);
          controller.close();
          return;
        }
        const part = next.value;
        if (part.type !== 'raw') parts.push(part);
        if (part.type === 'error') failed = true;
        if (TOOL_PARTS.has(part.type)) holding = true;
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

const DELTAS = new Set(['text-delta', 'reasoning-delta', 'tool-input-delta']);

/** Consecutive deltas of one text, reasoning or tool input merged: a smaller journal entry. */
function compact<P extends V3Part>(parts: readonly P[]): P[] {
  const out: P[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (
      last &&
      DELTAS.has(part.type) &&
      last.type === part.type &&
      last.id === part.id &&
      !part.providerMetadata
    ) {
      out[out.length - 1] = { ...last, delta: String(last.delta ?? '') + String(part.delta ?? '') };
    } else out.push(part);
  }
  return out;
}

/** Recorded parts as a stream again, dates revived (the journal keeps JSON). */
function replay<P extends V3Part>(parts: readonly P[]): ReadableStream<P> {
  return new ReadableStream<P>({
    start(controller) {
      for (const part of parts) {
        if (part.type === 'response-metadata' && typeof part.timestamp === 'string') {
          controller.enqueue({ ...part, timestamp: new Date(part.timestamp) });
        } else controller.enqueue(part);
      }
      controller.close();
    },
  });
}

function reviveGenerate<G extends V3Generated>(result: G): G {
  const timestamp = result.response?.timestamp;
  if (!result.response || typeof timestamp !== 'string') return result;
  return { ...result, response: { ...result.response, timestamp: new Date(timestamp) } };
}
