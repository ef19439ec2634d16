import {
  generateText,
  type LanguageModel,
  type ModelMessage,
  stepCountIs,
  streamText,
  type ToolSet,
} from 'ai';
import type { Interruption, Usage } from '../../core/requests.js';
import { ownOptions, type ReservedRunOptions } from '../../core/run-options.js';
import type {
  Runner,
  RunnerInput,
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
    return this.#stream(input, [...history, toUserMessage(input.requests)]);
  }

  /** Appends the approval responses; the SDK runs approved calls before it asks the model. */
  resumeStream(input: RunnerResumeInput<AiSdkAgentDefinition>): RunnerStream {
    const { messages } = resumeMessages(input.sessionId, input.pausedState, input.decisions);
    return this.#stream(input, messages);
  }

  async *#stream(
    input: RunnerInput<AiSdkAgentDefinition> | RunnerResumeInput<AiSdkAgentDefinition>,
    messages: ModelMessage[],
  ): RunnerStream {
    const spans = new AiSdkModelSpans();
    try {
      return yield* this.#run(input, messages, spans);
    } finally {
      spans.close(input.signal);
    }
  }

  async *#run(
    input: RunnerInput<AiSdkAgentDefinition> | RunnerResumeInput<AiSdkAgentDefinition>,
    messages: ModelMessage[],
    spans: AiSdkModelSpans,
  ): RunnerStream {
    const native = input.agent.native;
    const mapper = new AiSdkEventMapper(input.runId);
    const settings = {
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
      abortSignal: input.signal,
      // AI SDK 7 splits the v6 `experimental_context`: the run's (hooks, prepareStep) and one
      // per tool; every tool gets the same session object, so its changes are the new context.
      runtimeContext: input.context,
      // (`as never`: for a ToolSet not known statically the SDK types `toolsContext` as absent.)
      ...(native.tools ? { toolsContext: sameContext(native.tools, input.context) as never } : {}),
    };
    let generated: ModelMessage[];
    let text: string;
    let usage: Usage | undefined;
    try {
      if ('drained' in input && input.drained) {
        // A turn nobody streams (`Runtime.run`): `generateText`, its steps' content as events.
        const result = await generateText(settings);
        yield* mapper.mapSteps(result.steps);
        generated = result.responseMessages;
        text = result.text;
        usage = toUsage(result.totalUsage);
      } else {
        // Errors arrive as stream parts and are mapped there; the default logs them.
        const result = streamText({ onError: () => undefined, ...settings });
        for await (const part of result.fullStream) yield* mapper.map(part);
        yield* mapper.finish();
        // Every step's messages and the approved calls' results (AI SDK 7's `response` is the last step's).
        generated = await result.responseMessages;
        text = await result.text;
        usage = toUsage(await result.totalUsage);
      }
    } catch (err) {
      throw mapAiSdkError(err);
    }
    const all = [...messages, ...generated];
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
      text,
      ...(usage ? { usage } : {}),
      state: toHistory(all),
      // Tools see the very object passed as their context; its changes are the new context.
      context: input.context,
    };
  }
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
