import { canonicalJson, modelRequestKey } from '../../core/model-step.js';
import { historyRequestKey } from '../../core/request-key.js';
import { tryToolContext } from '../../core/tool-context.js';
import { journaledGenerate, journaledStream } from '../base/v3-journal.js';
import type { CallOptions, ModelLayer, StreamPart } from './model.js';

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
 * response that calls tools is recorded, held back from a call's first input part to its end,
 * before Mastra may run them (it runs a tool eagerly from `tool-input-end`). Every tool call the model makes is noted in `calls`.
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
    return journal
      ? journaledGenerate(journal, keyOf(options), next, () => legacyKeyOf(options))
      : next();
  },
  stream: async (_model, options, next) => {
    const journal = tryToolContext()?.journal;
    return journal
      ? journaledStream(journal, keyOf(options), next, () => legacyKeyOf(options))
      : next();
  },
});

/** What decides the model's answer and is the same on every attempt: prompt and tools offered. */
function keyOf(options: CallOptions): string {
  return historyRequestKey(
    'mastra',
    { tools: (options.tools ?? []).map((t) => t.name) },
    options.prompt,
    (message) =>
      typeof message.content === 'string'
        ? message
        : { ...message, content: message.content.map(withoutMastraTimes) },
  );
}

/** The key the build before chained keys gave this request (a journal it wrote replays). */
function legacyKeyOf(options: CallOptions): string {
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
