import {
  generateText,
  type LanguageModel,
  type ModelMessage,
  stepCountIs,
  streamText,
  type ToolSet,
} from 'ai';
import type { Interruption, Usage } from '../../core/requests.js';
import type { RunOptions } from '../../core/run-options.js';
import { ownOptions, type ReservedRunOptions } from '../../core/run-options.js';
import type {
  Runner,
  RunnerInput,
  RunnerResult,
  RunnerResumeInput,
  RunnerStream,
  ToolSummary,
} from '../../core/runner.js';
import { gateInterruption } from '../../tools/guard.js';
import { mapAiSdkError } from './errors.js';
import { AiSdkEventMapper } from './events.js';
import { journaledModel } from './model-journal.js';
import { AiSdkModelSpans } from './model-tracing.js';
import { loadHistory, resumeMessages, toHistory, toPaused, toUserMessage } from './state.js';
import { guardedToolSet } from './tool-journal.js';

type ProviderOptions = NonNullable<Parameters<typeof streamText>[0]['providerOptions']>;

/** An AI SDK agent: a model, instructions and tools, run as a tool loop by `streamText`. */
export interface AiSdkAgentDefinition {
  readonly name: string;
  readonly description?: string;
  readonly model: LanguageModel;
  readonly instructions?: string;
  readonly tools?: ToolSet;
  /** Model steps per turn (`stopWhen: stepCountIs(maxSteps)`); default 10. */
  readonly maxSteps?: number;
}

/** Keys this runner sets itself; users cannot pass them as run options. */
export const AI_SDK_RESERVED_RUN_OPTIONS: ReservedRunOptions = {
  model: 'the model belongs to the agent definition',
  tools: 'tools belong to the agent definition',
  system: 'instructions belong to the agent definition',
  messages: 'history is kept in the runtime session store',
  prompt: 'the turn’s input comes from the Runtime call',
  abortSignal: 'the runtime owns cancellation (pass an AbortSignal to the Runtime call)',
  instructions: 'instructions belong to the agent definition',
  runtimeContext: 'the framework context comes from the session',
  toolsContext: 'the framework context comes from the session',
};

/**
 * Runs AI SDK agents through `streamText`, or `generateText` for a drained turn (`Runtime.run`). History is the SDK's
 * own ModelMessage[] in the session slot; tools with `needsApproval` pause the run.
 */
export class AiSdkRunner implements Runner<AiSdkAgentDefinition> {
  readonly name = 'ai-sdk';
  readonly supportsStreaming = true;
  readonly supportsPause = true;
  readonly reservedRunOptions = AI_SDK_RESERVED_RUN_OPTIONS;

  describeTools(native: AiSdkAgentDefinition): ToolSummary[] {
    return Object.entries(native.tools ?? {}).map(([name, t]) => ({
      name,
      // A description may be a function of the tool's context; the session's is not known here.
      description: typeof t.description === 'string' ? t.description : '',
    }));
  }

  stream(input: RunnerInput<AiSdkAgentDefinition>): RunnerStream {
    const history = loadHistory(input.sessionId, input.state);
    return this.#stream(input, [...history, toUserMessage(input.requests)], history.length);
  }

  /** Appends the approval responses; the SDK runs approved calls before it asks the model. */
  resumeStream(input: RunnerResumeInput<AiSdkAgentDefinition>): RunnerStream {
    const { messages } = resumeMessages(input.sessionId, input.pausedState, input.decisions);
    return this.#stream(input, messages);
  }

  /** One async generator per turn: a wrapper generator cost every event another step. */
  async *#stream(
    input: RunnerInput<AiSdkAgentDefinition> | RunnerResumeInput<AiSdkAgentDefinition>,
    messages: ModelMessage[],
    loaded = 0,
  ): RunnerStream {
    const spans = new AiSdkModelSpans();
    const mapper = new AiSdkEventMapper(input.runId);
    try {
      const settings = this.#settings(input, messages, spans);
      let done: Done;
      try {
        if ('drained' in input && input.drained) {
          // A turn nobody streams (`Runtime.run`): `generateText`, its steps' content as events.
          const result = await generateText(settings);
          for (const event of mapper.mapSteps(result.steps)) yield event;
          done = { messages: result.responseMessages, text: result.text, usage: result.totalUsage };
        } else {
          // The end event carries what the result's getters would give: each getter tees and
          // replays the whole stream once more.
          let ended: Done | undefined;
          const onEnd = endCallback(input.options, (event) => {
            ended = { messages: event.responseMessages, text: event.text, usage: event.totalUsage };
          });
          // Errors arrive as stream parts and are mapped there; the default logs them.
          const result = streamText({ onError: () => undefined, ...settings, onEnd });
          for await (const part of result.fullStream) {
            for (const event of mapper.map(part)) yield event;
          }
          for (const event of mapper.finish()) yield event;
          // Every step's messages and the approved calls' results (AI SDK 7's `response` is the last step's).
          done = ended ?? {
            messages: await result.responseMessages,
            text: await result.text,
            usage: await result.totalUsage,
          };
        }
      } catch (err) {
        throw mapAiSdkError(err);
      }
      return toResult(input, [...messages, ...done.messages], done, mapper, loaded);
    } finally {
      spans.close(input);
    }
  }

  #settings(
    input: RunnerInput<AiSdkAgentDefinition> | RunnerResumeInput<AiSdkAgentDefinition>,
    messages: ModelMessage[],
    spans: AiSdkModelSpans,
  ) {
    const native = input.agent.native;
    return {
      // Retries are the caller's policy; a failed turn stores nothing and can be sent again.
      maxRetries: 0,
      stopWhen: stepCountIs(native.maxSteps ?? 10),
      ...ownOptions(input.options, AI_SDK_RESERVED_RUN_OPTIONS),
      providerOptions: withoutServerHistory(input.options.providerOptions),
      // One `model` span per model call, under the run's span; replayed from the run journal.
      model: journaledModel(spans.model(native.model)),
      ...(native.instructions ? { system: native.instructions } : {}),
      // Native tools run at most once across the run's attempts (ToolSpec tools: the executor).
      ...(native.tools ? { tools: guardedToolSet(native.tools) } : {}),
      messages,
      // A drained turn's call settles before the turn's own signal can abort (RunnerInput):
      // the caller's alone spares the SDK and the fetch their listeners for it.
      ...abortSignalOf(input),
      // AI SDK 7 splits the v6 `experimental_context`: the run's (hooks, prepareStep) and one
      // per tool; every tool gets the same session object, so its changes are the new context.
      runtimeContext: input.context,
      // (`as never`: for a ToolSet not known statically the SDK types `toolsContext` as absent.)
      ...(native.tools ? { toolsContext: sameContext(native.tools, input.context) as never } : {}),
    };
  }
}

/** What a finished turn gave: its new messages, its last step's text, its total usage. */
interface Done {
  readonly messages: readonly ModelMessage[];
  readonly text: string;
  readonly usage: { inputTokens: number | undefined; outputTokens: number | undefined };
}

type OnEnd = NonNullable<Parameters<typeof streamText>[0]['onEnd']>;

/** Our `onEnd`, then the caller's own (`onEnd`, or `onFinish`, its older name) if any. */
function endCallback(options: RunOptions, seen: (event: Parameters<OnEnd>[0]) => void): OnEnd {
  const own = (options.onEnd ?? options.onFinish) as OnEnd | undefined;
  return async (event) => {
    seen(event);
    await own?.(event);
  };
}

function toResult(
  input: RunnerInput<AiSdkAgentDefinition> | RunnerResumeInput<AiSdkAgentDefinition>,
  all: ModelMessage[],
  done: Done,
  mapper: AiSdkEventMapper,
  loaded: number,
): RunnerResult {
  const usage = toUsage(done.usage);
  if (mapper.approvals.length > 0) {
    return {
      status: 'paused',
      interruptions: mapper.approvals.map(
        (a): Interruption => ({
          ...gateInterruption(a.toolCallId),
          kind: 'tool-approval',
          toolName: a.toolName,
          ...(a.input === undefined ? {} : { arguments: a.input }),
        }),
      ),
      pausedState: toPaused(all, mapper.approvals),
      context: input.context,
      ...(usage ? { usage } : {}),
    };
  }
  return {
    status: 'completed',
    text: done.text,
    ...(usage ? { usage } : {}),
    state: toHistory(all, loaded),
    // Tools see the very object passed as their context; its changes are the new context.
    context: input.context,
  };
}

/**
 * OpenAI's Responses API stores outputs by default and the provider then sends `item_reference`s
 * instead of the messages: history would live on OpenAI's servers, not in our session. A caller
 * may still opt in with `providerOptions.openai.store`.
 */
function withoutServerHistory(options: unknown): ProviderOptions {
  const given = (options ?? {}) as ProviderOptions;
  return { ...given, openai: { store: false, ...given.openai } };
}

function abortSignalOf(
  input: RunnerInput<AiSdkAgentDefinition> | RunnerResumeInput<AiSdkAgentDefinition>,
): { abortSignal?: AbortSignal } {
  if (!('drained' in input && input.drained)) return { abortSignal: input.signal };
  return input.callerSignal ? { abortSignal: input.callerSignal } : {};
}

function sameContext(tools: ToolSet, context: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(tools).map((name) => [name, context]));
}

function toUsage(usage: {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}): Usage | undefined {
  if (!usage.inputTokens && !usage.outputTokens) return undefined;
  return { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 };
}
