import {
  Agent,
  type AgentConfig,
  type AgentResult,
  type InvokeArgs,
  SessionManager,
  Tool,
} from '@strands-agents/sdk';
import type { Interruption } from '../../core/requests.js';
import { ownOptions, type ReservedRunOptions } from '../../core/run-options.js';
import type {
  Runner,
  RunnerInput,
  RunnerResult,
  RunnerResumeInput,
  RunnerStream,
  ToolSummary,
} from '../../core/runner.js';
import { limitReached, mapStrandsError } from './errors.js';
import { StrandsEventMapper } from './events.js';
import { addApprovalGate } from './gate.js';
import { observeModel } from './model-journal.js';
import { StrandsModelSpans } from './model-tracing.js';
import { pausedRun, resumeArgs, toInterruptions } from './pause.js';
import { SessionSlotStorage, toUserContent } from './state.js';
import { guardTools } from './tool-journal.js';

/** The agent's configuration; the runner sets history, session storage and printing itself. */
export type StrandsAgentConfig = Omit<
  AgentConfig,
  'messages' | 'sessionManager' | 'storage' | 'printer' | 'name' | 'description'
>;

/**
 * A Strands agent: its name and the configuration a fresh `Agent` is built from for every turn
 * (an `Agent` holds one conversation and runs one invocation at a time).
 */
export interface StrandsAgentDefinition extends StrandsAgentConfig {
  readonly name: string;
  readonly description?: string;
}

/** Keys this runner sets itself; users cannot pass them as run options. */
export const STRANDS_RESERVED_RUN_OPTIONS: ReservedRunOptions = {
  invocationState: 'the framework context comes from the session (tools read it there)',
  cancelSignal: 'the runtime owns cancellation (pass an AbortSignal to the Runtime call)',
};

// Strands validates session ids (lowercase, digits, - and _); the storage is this session's.
const STRANDS_SESSION_ID = 'session';

/**
 * Runs Strands agents (`@strands-agents/sdk`) through `Agent.stream`. Strands' own
 * `SessionManager` keeps the conversation, on a storage that is this runner's session slot;
 * the framework context is the invocation's `invocationState`; run options are `InvokeOptions`
 * (`limits`, `structuredOutputSchema`). Calls of `withApproval` tools and `confirm` ToolSpecs
 * pause the run at a Strands interrupt.
 */
export class StrandsRunner implements Runner<StrandsAgentDefinition> {
  readonly name = 'strands';
  readonly supportsStreaming = true;
  readonly supportsPause = true;
  readonly reservedRunOptions = STRANDS_RESERVED_RUN_OPTIONS;

  describeTools(native: StrandsAgentDefinition): ToolSummary[] {
    return flatTools(native.tools ?? [])
      .filter((t): t is Tool => t instanceof Tool)
      .map((t) => ({ name: t.name, description: t.description }));
  }

  stream(input: RunnerInput<StrandsAgentDefinition>): RunnerStream {
    const storage = SessionSlotStorage.fromSlot(input.sessionId, input.state, 'state');
    return this.#stream(input, storage, toUserContent(input.requests));
  }

  /** Restores the paused snapshot and answers Strands' interrupts with the decisions. */
  resumeStream(input: RunnerResumeInput<StrandsAgentDefinition>): RunnerStream {
    const { storage, args } = resumeArgs(input.sessionId, input.pausedState, input.decisions);
    return this.#stream(input, storage, args);
  }

  async *#stream(
    input: RunnerInput<StrandsAgentDefinition> | RunnerResumeInput<StrandsAgentDefinition>,
    storage: SessionSlotStorage,
    args: InvokeArgs,
  ): RunnerStream {
    const spans = new StrandsModelSpans();
    try {
      return yield* this.#run(input, storage, args, spans);
    } finally {
      spans.close(input.signal);
    }
  }

  async *#run(
    input: RunnerInput<StrandsAgentDefinition> | RunnerResumeInput<StrandsAgentDefinition>,
    storage: SessionSlotStorage,
    args: InvokeArgs,
    spans: StrandsModelSpans,
  ): RunnerStream {
    const agent = buildAgent(input.agent.native, storage, spans);
    const mapper = new StrandsEventMapper(input.runId);
    const run = agent.stream(args, {
      ...ownOptions(input.options, STRANDS_RESERVED_RUN_OPTIONS),
      invocationState: input.context,
      cancelSignal: input.signal,
    });
    let result: AgentResult | undefined;
    try {
      for (let step = await run.next(); ; step = await run.next()) {
        if (step.done) {
          result = step.value;
          break;
        }
        yield* mapper.map(step.value);
      }
      yield* mapper.finish();
    } catch (err) {
      throw mapStrandsError(err);
    } finally {
      // A consumer that stopped early: end Strands' invocation too.
      if (!result) await run.return(undefined as never).catch(() => undefined);
    }
    return finish(input, result, storage, mapper);
  }
}

function flatTools(list: readonly unknown[]): unknown[] {
  return list.flatMap((item) => (Array.isArray(item) ? flatTools(item) : [item]));
}

function buildAgent(
  native: StrandsAgentDefinition,
  storage: SessionSlotStorage,
  spans: StrandsModelSpans,
): Agent {
  const { name, description, ...config } = native;
  const agent = new Agent({
    // Retries are the caller's policy; a failed turn stores nothing and can be sent again.
    retryStrategy: null,
    ...config,
    name,
    ...(description ? { description } : {}),
    printer: false,
    sessionManager: new SessionManager({ storage, sessionId: STRANDS_SESSION_ID }),
  });
  addApprovalGate(agent);
  guardTools(agent);
  // One middleware for journal and spans: a replayed model call has neither a request nor a span.
  observeModel(agent, spans);
  return agent;
}

function finish(
  input: RunnerInput<StrandsAgentDefinition> | RunnerResumeInput<StrandsAgentDefinition>,
  result: AgentResult,
  storage: SessionSlotStorage,
  mapper: StrandsEventMapper,
): RunnerResult {
  const usage = mapper.usage;
  if (result.stopReason === 'cancelled') {
    const err = new Error('The run was aborted.');
    err.name = 'AbortError';
    throw err;
  }
  if (result.stopReason === 'interrupt') {
    const interrupts = result.interrupts ?? [];
    const interruptions: Interruption[] = toInterruptions(interrupts);
    return {
      status: 'paused',
      interruptions,
      pausedState: pausedRun(storage, interrupts, interruptions),
      context: input.context,
      ...(usage ? { usage } : {}),
    };
  }
  if (result.stopReason.startsWith('limit'))
    throw limitReached(input.agent.name, result.stopReason);
  const text = result.lastMessage.content
    .map((block) => (block.type === 'textBlock' ? block.text : ''))
    .join('');
  return {
    status: 'completed',
    text,
    ...(result.structuredOutput !== undefined ? { output: result.structuredOutput } : {}),
    ...(usage ? { usage } : {}),
    state: storage.toSlot(),
    // Tools see the very object passed as invocationState; its changes are the new context.
    context: input.context,
  };
}
