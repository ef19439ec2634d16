import {
  type AgentInputItem,
  type ModelProvider,
  type RunConfig,
  RunContext,
  type RunResult,
  RunState,
  type RunToolApprovalItem,
  Runner as SdkRunner,
  type StreamedRunResult,
} from '@openai/agents';
import { InvalidDecisions } from '../../core/errors.js';
import type { Interruption, Usage } from '../../core/requests.js';
import { ownOptions, type ReservedRunOptions } from '../../core/run-options.js';
import type {
  Runner,
  RunnerInput,
  RunnerResult,
  RunnerResumeInput,
  RunnerStream,
  ToolSummary,
} from '../../core/runner.js';
import { gateDecision, gateInterruption } from '../../tools/guard.js';
import { mapOpenAIError } from './errors.js';
import { OpenAIEventMapper } from './events.js';
import { loadState, toState, toUserItem } from './input.js';
import { tracedModelProvider } from './model-tracing.js';
import type { NativeOpenAIAgent } from './native.js';
import { withEditedArguments } from './state.js';
import { guardNativeTools } from './tool-journal.js';
import { traceNativeTools } from './tool-tracing.js';

export type { NativeOpenAIAgent };

/** The framework context we hand the SDK: the session's, a plain record. */
type Context = Record<string, unknown>;
type Streamed = StreamedRunResult<Context, NativeOpenAIAgent>;

export interface OpenAIRunnerOptions {
  /** Passed to the SDK's `Runner` (model provider, model settings, guardrails, tracing). */
  runConfig?: Partial<RunConfig>;
  /** An SDK runner to use as it is; wins over `runConfig`. */
  sdkRunner?: SdkRunner;
}

/** Keys this runner sets itself; users cannot pass them as run options. */
export const OPENAI_RESERVED_RUN_OPTIONS: ReservedRunOptions = {
  stream: 'the runtime chooses streaming (use Runtime.stream or Runtime.run)',
  context: 'the framework context comes from the session (pass it through the Runtime)',
  signal: 'the runtime owns cancellation (pass an AbortSignal to the Runtime call)',
  session: 'history is kept in the runtime session store',
  previousResponseId: 'history is kept in the runtime session store, not on the server',
  conversationId: 'history is kept in the runtime session store, not on the server',
};

/** Runs `@openai/agents` agents; history lives in our session as the SDK's own items. */
export class OpenAIRunner implements Runner<NativeOpenAIAgent> {
  readonly name = 'openai';
  readonly supportsStreaming = true;
  readonly supportsPause = true;
  readonly reservedRunOptions = OPENAI_RESERVED_RUN_OPTIONS;

  describeTools(native: NativeOpenAIAgent): ToolSummary[] {
    return native.tools.map((t) => ({
      name: t.name,
      description: (t as { description?: string }).description ?? '',
    }));
  }
  readonly #sdk: SdkRunner;

  constructor(options: OpenAIRunnerOptions = {}) {
    // Our tracer is the tracing backend; the SDK's exporter would call OpenAI's servers.
    this.#sdk = options.sdkRunner ?? new SdkRunner({ tracingDisabled: true, ...options.runConfig });
    // Model calls become `model` spans of the runtime's tracer (a plain pass-through otherwise).
    const config = this.#sdk.config as { modelProvider: ModelProvider };
    config.modelProvider = tracedModelProvider(config.modelProvider);
    traceNativeTools(this.#sdk);
  }

  stream(input: RunnerInput<NativeOpenAIAgent>): RunnerStream {
    guardNativeTools(input.agent.native);
    if (input.drained) return this.#drained(input);
    return this.#stream(input, () =>
      this.#sdk.run(input.agent.native, this.#input(input), {
        ...ownOptions(input.options, OPENAI_RESERVED_RUN_OPTIONS),
        stream: true,
        context: input.context,
        signal: input.signal,
      }),
    );
  }

  /** Restores the SDK's RunState, applies the decisions and runs the pending tool calls. */
  resumeStream(input: RunnerResumeInput<NativeOpenAIAgent>): RunnerStream {
    return this.#stream(input, async () =>
      this.#sdk.run(input.agent.native, await this.#restore(input), {
        ...ownOptions(input.options, OPENAI_RESERVED_RUN_OPTIONS),
        stream: true,
        signal: input.signal,
      }),
    );
  }

  async #restore(
    input: RunnerResumeInput<NativeOpenAIAgent>,
  ): Promise<RunState<Context, NativeOpenAIAgent>> {
    guardNativeTools(input.agent.native);
    const json = withEditedArguments(input.pausedState, input.decisions);
    let state: RunState<Context, NativeOpenAIAgent>;
    try {
      // Our context replaces the one frozen in the state: the session's is the one of record.
      state = await RunState.fromStringWithContext(
        input.agent.native,
        JSON.stringify(json),
        new RunContext(input.context),
        { contextStrategy: 'replace' },
      );
    } catch (err) {
      throw mapOpenAIError(err, input.agent.name);
    }
    for (const item of state.getInterruptions()) {
      const raw = item.rawItem as Record<string, unknown>;
      const decision = gateDecision(input.decisions, String(raw.callId ?? raw.id));
      if (!decision) {
        throw new InvalidDecisions(`No decision for tool call "${String(raw.callId ?? raw.id)}".`);
      }
      if (decision.status === 'approved') state.approve(item);
      else state.reject(item, decision.message ? { message: decision.message } : undefined);
    }
    return state;
  }

  async *#stream(
    input: RunnerInput<NativeOpenAIAgent> | RunnerResumeInput<NativeOpenAIAgent>,
    start: () => Promise<Streamed>,
  ): RunnerStream {
    const mapper = new OpenAIEventMapper(input.runId);
    let result: Streamed;
    try {
      result = await start();
    } catch (err) {
      throw mapOpenAIError(err, input.agent.name);
    }
    try {
      for await (const event of result) {
        for (const mapped of mapper.map(event)) yield mapped;
      }
      await result.completed;
    } catch (err) {
      throw mapOpenAIError(err, input.agent.name);
    }
    if (result.error) throw mapOpenAIError(result.error, input.agent.name);
    for (const event of mapper.finish()) yield event;
    return toResult(result, input.context);
  }

  /**
   * A turn nobody streams: the SDK's non-streaming run (its streaming path costs ~1.5× as much),
   * then the result's items as events, so the runtime's driver sees the same turn.
   */
  async *#drained(input: RunnerInput<NativeOpenAIAgent>): RunnerStream {
    let result: RunResult<Context, NativeOpenAIAgent>;
    try {
      result = await this.#sdk.run(input.agent.native, this.#input(input), {
        ...ownOptions(input.options, OPENAI_RESERVED_RUN_OPTIONS),
        stream: false,
        context: input.context,
        // Only the caller's: the turn's own signal cannot abort before this call settles, and
        // the SDK's checks and the fetch's listeners for it cost per turn.
        ...(input.callerSignal ? { signal: input.callerSignal } : {}),
      });
    } catch (err) {
      throw mapOpenAIError(err, input.agent.name);
    }
    // The SDK's non-streaming path asks approval for a call whose arguments are not JSON (its
    // gate cannot parse them) where the streaming path runs it into the tool's error: approve
    // such calls so both paths answer the model the same way (our executor refuses them).
    for (let tries = 0; tries < 8; tries++) {
      const unparsable = result.interruptions.filter(notJsonArguments);
      if (unparsable.length === 0) break;
      for (const item of unparsable) result.state.approve(item);
      try {
        result = await this.#sdk.run(input.agent.native, result.state, {
          ...ownOptions(input.options, OPENAI_RESERVED_RUN_OPTIONS),
          stream: false,
          context: input.context,
          ...(input.callerSignal ? { signal: input.callerSignal } : {}),
        });
      } catch (err) {
        throw mapOpenAIError(err, input.agent.name);
      }
    }
    // Not `yield*`: over an array it costs every event one more await.
    for (const event of new OpenAIEventMapper(input.runId).mapItems(result.newItems)) yield event;
    return toResult(result, input.context);
  }

  #input(input: RunnerInput<NativeOpenAIAgent>): AgentInputItem[] {
    return [...loadState(input.sessionId, input.state), toUserItem(input.requests)];
  }
}

/** An approval item whose call's arguments do not parse as JSON. */
function notJsonArguments(item: RunToolApprovalItem): boolean {
  const args = (item.rawItem as { arguments?: unknown }).arguments;
  if (typeof args !== 'string') return false;
  try {
    JSON.parse(args);
    return false;
  } catch {
    return true;
  }
}

function toResult(
  result: Streamed | RunResult<Context, NativeOpenAIAgent>,
  context: Record<string, unknown>,
): RunnerResult {
  const usage = toUsage(result);
  // The SDK hands tools the very object we passed; what they changed is the new context.
  const after = (result.runContext.context ?? context) as Record<string, unknown>;
  if (result.interruptions.length > 0) {
    return {
      status: 'paused',
      interruptions: result.interruptions.map(toInterruption),
      pausedState: JSON.parse(result.state.toString()),
      context: after,
      ...(usage ? { usage } : {}),
    };
  }
  const final = result.finalOutput as unknown;
  return {
    status: 'completed',
    text: typeof final === 'string' ? final : '',
    ...(final === undefined || typeof final === 'string' ? {} : { output: final }),
    ...(usage ? { usage } : {}),
    state: toState(result.history),
    context: after,
  };
}

function toUsage(result: Pick<Streamed, 'runContext'>): Usage | undefined {
  const usage = result.runContext.usage;
  if (!usage || (usage.inputTokens === 0 && usage.outputTokens === 0)) return undefined;
  return { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
}

/** The fields of a raw approval item (a function, hosted, computer, shell or patch call) we read. */
interface RawApprovalCall {
  readonly callId?: unknown;
  readonly id?: unknown;
  readonly name?: string;
  readonly arguments?: unknown;
}

function toInterruption(item: RunToolApprovalItem): Interruption {
  const raw = item.rawItem as RawApprovalCall;
  let args: unknown = raw.arguments;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      // Keep the model's text as it is: the approver should see what the model sent.
    }
  }
  return {
    ...gateInterruption(String(raw.callId ?? raw.id)),
    kind: 'tool-approval',
    toolName: item.toolName ?? raw.name,
    ...(args === undefined ? {} : { arguments: args }),
  };
}
