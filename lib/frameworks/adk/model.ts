import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type BaseAgent,
  BaseLlm,
  type BaseLlmConnection,
  Gemini,
  isLlmAgent,
  type LlmRequest,
  type LlmResponse,
} from '@google/adk';
import type { StreamEvent } from '../../core/events.js';
import type { RunJournal } from '../../core/journal.js';
import { asJson, modelRequestKey } from '../../core/model-step.js';
import { historyRequestKey } from '../../core/request-key.js';
import type { JsonValue } from '../../core/session.js';
import { tryToolContext } from '../../core/tool-context.js';
import { activeSpan, type Span, startChildSpan } from '../../core/tracer.js';

/** What one run listens for from its models: step events, and the error a call threw. */
export class AdkRunHooks {
  readonly pending: StreamEvent[] = [];
  readonly #runId: string;
  #steps = 0;
  /** Token usage over every model call of the run. */
  readonly usage = { inputTokens: 0, outputTokens: 0 };
  /** The last error a model call threw (ADK turns it into an event with only its message). */
  thrown: unknown;

  constructor(runId: string) {
    this.#runId = runId;
  }

  stepStart(): string {
    this.#steps += 1;
    const stepId = `${this.#runId}-step-${this.#steps}`;
    this.pending.push({ type: 'step-start', runId: this.#runId, stepId });
    return stepId;
  }

  stepEnd(stepId: string, usage: LlmResponse['usageMetadata']): void {
    const tokens = usage && {
      inputTokens: usage.promptTokenCount ?? 0,
      outputTokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
    };
    if (tokens) {
      this.usage.inputTokens += tokens.inputTokens;
      this.usage.outputTokens += tokens.outputTokens;
    }
    this.pending.push({
      type: 'step-end',
      runId: this.#runId,
      stepId,
      ...(tokens ? { usage: tokens } : {}),
    });
  }

  /** The step events so far, for the runner to yield before ADK's next event. */
  *drain(): Generator<StreamEvent> {
    while (this.pending.length > 0) yield this.pending.shift() as StreamEvent;
  }
}

const runHooks = new AsyncLocalStorage<AdkRunHooks>();

/** Runs `fn` (one step of ADK's event stream) with the run's hooks in reach of its models. */
export function withRunHooks<T>(hooks: AdkRunHooks, fn: () => T): T {
  return runHooks.run(hooks, fn);
}

/**
 * An agent's model behind our hooks, installed once in place of the agent's own (`model` may be
 * a name or a `BaseLlm`): every call opens a step and a `model` span, and with a run journal a
 * response that calls tools is recorded before ADK may run them (ADK runs them as soon as the
 * response is yielded), and served from the journal on a replay instead of calling the model.
 * Outside a run (no hooks, no journal, no tracer) it only forwards.
 */
export class KernelLlm extends BaseLlm {
  readonly inner: BaseLlm;

  constructor(inner: BaseLlm) {
    super({ model: inner.model });
    this.inner = inner;
  }

  async *generateContentAsync(
    request: LlmRequest,
    stream?: boolean,
    abortSignal?: AbortSignal,
  ): AsyncGenerator<LlmResponse, void> {
    const hooks = runHooks.getStore();
    const journal = tryToolContext()?.journal;
    const key = journal ? keyOf(request) : undefined;
    const stepId = hooks?.stepStart();
    const span = activeSpan()
      ? startChildSpan('model', 'model', {
          model: request.model ?? this.model,
          provider: this.inner instanceof Gemini ? 'gemini' : this.inner.constructor.name,
          ...(stream ? { streamed: true } : {}),
        })
      : undefined;
    span?.setPayload('input', () => summary(request.contents));
    let usage: LlmResponse['usageMetadata'];
    const seen: LlmResponse[] = [];
    try {
      const recorded = key
        ? (journal?.recordedModel(key, () => legacyKeyOf(request)) as LlmResponse[] | undefined)
        : undefined;
      const source = recorded
        ? replay(recorded)
        : this.#live(request, stream, abortSignal, journal, key);
      for await (const response of source) {
        if (response.usageMetadata) usage = response.usageMetadata;
        if (!response.partial) seen.push(response);
        yield response;
      }
    } catch (err) {
      if (hooks) hooks.thrown = err;
      span?.recordError(err);
      throw err;
    } finally {
      if (stepId) hooks?.stepEnd(stepId, usage);
      if (span) end(span, seen, usage, abortSignal);
    }
  }

  /** The model's responses; from the first one that calls tools, held until recorded. */
  async *#live(
    request: LlmRequest,
    stream: boolean | undefined,
    abortSignal: AbortSignal | undefined,
    journal: RunJournal | undefined,
    key: string | undefined,
  ): AsyncGenerator<LlmResponse> {
    const held: LlmResponse[] = [];
    const kept: LlmResponse[] = [];
    for await (const response of this.inner.generateContentAsync(request, stream, abortSignal)) {
      if (!response.partial) kept.push(response);
      if (held.length === 0 && !callsTools(response)) {
        yield response;
        continue;
      }
      held.push(response);
    }
    if (held.length > 0 && journal && key) {
      await journal.recordModel(key, asJson<JsonValue>(kept));
    }
    yield* held;
  }

  connect(request: LlmRequest): Promise<BaseLlmConnection> {
    return this.inner.connect(request);
  }
}

/**
 * Puts a `KernelLlm` in place of each model of the agent tree (once: a model already wrapped is
 * left alone). A sub-agent without a model of its own uses its parent's, wrapped there.
 */
export function wrapModels(agent: BaseAgent): void {
  if (isLlmAgent(agent)) {
    const model = agent.model;
    if (!(model instanceof KernelLlm) && (model || !agent.parentAgent)) {
      agent.model = new KernelLlm(agent.canonicalModel);
    }
  }
  for (const sub of agent.subAgents) wrapModels(sub);
}

/** What decides the model's answer and is the same on every attempt. */
function keyOf(request: LlmRequest): string {
  return historyRequestKey(
    'adk',
    {
      model: request.model,
      system: request.config?.systemInstruction,
      tools: Object.keys(request.toolsDict ?? {}).sort(),
    },
    request.contents,
  );
}

/** The key the build before chained keys gave this request (a journal it wrote replays). */
function legacyKeyOf(request: LlmRequest): string {
  return modelRequestKey(
    {
      model: request.model,
      contents: request.contents,
      system: request.config?.systemInstruction,
      tools: Object.keys(request.toolsDict ?? {}).sort(),
    },
    'adk',
  );
}

function callsTools(response: LlmResponse): boolean {
  return response.content?.parts?.some((part) => part.functionCall) === true;
}

async function* replay(responses: readonly LlmResponse[]): AsyncGenerator<LlmResponse> {
  for (const response of responses) yield response;
}

function end(
  span: Span,
  responses: readonly LlmResponse[],
  usage: LlmResponse['usageMetadata'],
  signal: AbortSignal | undefined,
): void {
  span.setAttributes({
    inputTokens: usage?.promptTokenCount,
    outputTokens: usage && (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
  });
  span.setPayload('output', () =>
    summary(responses.flatMap((r) => (r.content ? [r.content] : []))),
  );
  if (signal?.aborted) span.recordError(signal.reason);
  span.end();
}

/**
 * What a trace keeps of contents: roles and text, calls by name and id, responses by id.
 * Call arguments are left out: the tool span records them, with sensitive paths applied.
 */
function summary(contents: readonly NonNullable<LlmResponse['content']>[]): unknown {
  return contents.map((content) => {
    const parts = content.parts ?? [];
    const text = parts.map((part) => (part.thought ? '' : (part.text ?? ''))).join('');
    const calls = parts.flatMap((p) =>
      p.functionCall ? [{ name: p.functionCall.name, callId: p.functionCall.id }] : [],
    );
    const results = parts.flatMap((p) =>
      p.functionResponse
        ? [{ callId: p.functionResponse.id, output: p.functionResponse.response }]
        : [],
    );
    return {
      role: content.role,
      ...(text ? { text } : {}),
      ...(calls.length ? { calls } : {}),
      ...(results.length ? { results } : {}),
    };
  });
}
