import type { RunJournal } from '../../core/journal.js';
import { asJson, canonicalJson, modelRequestKey } from '../../core/model-step.js';
import type { JsonValue } from '../../core/session.js';
import { tryToolContext } from '../../core/tool-context.js';
import type { CallOptions, GenerateResult, ModelLayer, StreamPart } from './model.js';

/** A model response as the journal keeps it: a streamed call's parts or a generated result. */
type Recorded = { stream: StreamPart[] } | { generate: GenerateResult };

/**
 * The tool calls the model made in one run, by tool name and arguments: Mastra's approval
 * policy is asked with a call's arguments only, and the journal keeps call states by call id.
 */
export class CallIndex {
  readonly #ids = new Map<string, string[]>();

  add(part: StreamPart): void {
    if (part.type !== 'tool-call' || typeof part.toolCallId !== 'string') return;
    const key = this.#key(String(part.toolName), parseInput(part.input));
    this.#ids.set(key, [...(this.#ids.get(key) ?? []), part.toolCallId]);
  }

  idsOf(toolName: string, args: unknown): readonly string[] {
    return this.#ids.get(this.#key(toolName, args)) ?? [];
  }

  #key(toolName: string, args: unknown): string {
    return `${toolName}\u0000${canonicalJson(args ?? {})}`;
  }
}

/**
 * The run journal around the agent's model: a call whose response an earlier attempt recorded
 * is answered from the journal without calling the model (so call ids stay the same); a fresh
 * response that calls tools is recorded, held back from its first tool call to its end, before
 * Mastra may run them. Every tool call the model makes is noted in `calls`.
 */
export function journalLayer(calls: CallIndex): ModelLayer {
  const layer = journalOnly();
  return {
    generate: async (model, options, next) => {
      const result = await layer.generate(model, options, next);
      for (const part of result.content) calls.add(part);
      return result;
    },
    stream: async (model, options, next) => {
      const result = await layer.stream(model, options, next);
      return { ...result, stream: result.stream.pipeThrough(tap(calls)) };
    },
  };
}

function tap(calls: CallIndex): TransformStream<StreamPart, StreamPart> {
  return new TransformStream({
    transform(part, controller) {
      calls.add(part);
      controller.enqueue(part);
    },
  });
}

function parseInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

const journalOnly = (): ModelLayer => ({
  generate: async (_model, options, next) => {
    const journal = tryToolContext()?.journal;
    if (!journal) return next();
    const key = keyOf(options);
    const recorded = journal.recordedModel(key) as Recorded | undefined;
    if (recorded && 'generate' in recorded) return reviveGenerate(recorded.generate);
    const result = await next();
    if (result.content.some((part) => part.type === 'tool-call')) {
      const { request: _request, ...kept } = result;
      const response = kept.response && { ...kept.response, body: undefined, headers: undefined };
      await journal.recordModel(key, asJson<JsonValue>({ generate: { ...kept, response } }));
    }
    return result;
  },
  stream: async (_model, options, next) => {
    const journal = tryToolContext()?.journal;
    if (!journal) return next();
    const key = keyOf(options);
    const recorded = journal.recordedModel(key) as Recorded | undefined;
    if (recorded && 'stream' in recorded) return { stream: replay(recorded.stream) };
    const result = await next();
    return { ...result, stream: recordOnToolCall(result.stream, journal, key) };
  },
});

/** What decides the model's answer and is the same on every attempt: prompt and tools offered. */
function keyOf(options: CallOptions): string {
  const prompt = options.prompt.map((message) =>
    typeof message.content === 'string'
      ? message
      : { ...message, content: message.content.map(withoutMastraTimes) },
  );
  return modelRequestKey({ prompt, tools: (options.tools ?? []).map((t) => t.name) }, 'mastra');
}

/** Mastra stamps each part with the time it was made; a retried attempt's stamps differ. */
function withoutMastraTimes(part: { [key: string]: unknown }): unknown {
  const providerOptions = part.providerOptions as Record<string, unknown> | undefined;
  if (!providerOptions?.mastra) return part;
  const { mastra: _mastra, ...rest } = providerOptions;
  return { ...part, providerOptions: rest };
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
  const deltas = new Set(['text-delta', 'reasoning-delta', 'tool-input-delta']);
  const out: StreamPart[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (
      last &&
      deltas.has(part.type) &&
      last.type === part.type &&
      last.id === part.id &&
      !part.providerMetadata
    ) {
      out[out.length - 1] = { ...last, delta: String(last.delta ?? '') + String(part.delta ?? '') };
    } else out.push(part);
  }
  return out;
}

function replay(parts: readonly StreamPart[]): ReadableStream<StreamPart> {
  return new ReadableStream<StreamPart>({
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

function reviveGenerate(result: GenerateResult): GenerateResult {
  const timestamp = result.response?.timestamp;
  if (!result.response || !timestamp) return result;
  return { ...result, response: { ...result.response, timestamp: new Date(timestamp) } };
}
