import type { Agent } from './agent.js';
import type { StreamEvent } from './events.js';
import type { Interruption, Request, Usage } from './requests.js';
import type { ReservedRunOptions, RunOptions } from './run-options.js';
import type { JsonValue } from './session.js';

/** Everything a runner needs for one turn; the runtime owns loading and storing. */
export interface RunnerInput<TNative = unknown> {
  readonly runId: string;
  readonly sessionId: string;
  readonly agent: Agent<TNative>;
  readonly requests: readonly Request[];
  /** This runner's slot of the session (undefined on the first turn). */
  readonly state: JsonValue | undefined;
  /** A deep copy of the framework context, for the runner to hand to the framework. */
  readonly context: Record<string, unknown>;
  readonly options: RunOptions;
  readonly signal: AbortSignal;
  /**
   * The caller's own abort signal, if any. `signal` also aborts when the turn fails or its
   * consumer stops; a drained turn's framework call has settled before either can happen, so it
   * needs only this one (none at all when the caller gave none).
   */
  readonly callerSignal?: AbortSignal;
  /**
   * Set when the caller wants only the result (`Runtime.run` with no post-hook that has
   * `onStreamEvent`): the runner may serve the turn with the framework's non-streaming call and
   * yield the events of its result (whole messages and tool calls, no token deltas).
   */
  readonly drained?: boolean;
}

export interface RunnerCompleted {
  readonly status: 'completed';
  readonly text: string;
  readonly output?: unknown;
  readonly usage?: Usage;
  /** The runner's new session slot, stored only because the turn succeeded. */
  readonly state: JsonValue;
  /** The framework context after the run; merged back shallowly. */
  readonly context: Record<string, unknown>;
}

export interface RunnerPaused {
  readonly status: 'paused';
  readonly interruptions: readonly Interruption[];
  /** The framework's own serialised run state (never code), resumed later. */
  readonly pausedState: JsonValue;
  readonly context: Record<string, unknown>;
  readonly usage?: Usage;
}

export type RunnerResult = RunnerCompleted | RunnerPaused;

/** A streamed turn: yields events, returns the result. */
export type RunnerStream = AsyncGenerator<StreamEvent, RunnerResult, undefined>;

/** What a card says of one tool. */
export interface ToolSummary {
  readonly name: string;
  readonly description: string;
}

export interface Decision {
  readonly id: string;
  readonly status: 'approved' | 'denied';
  readonly message?: string;
  readonly arguments?: unknown;
}

export interface RunnerResumeInput<TNative = unknown>
  extends Omit<RunnerInput<TNative>, 'requests'> {
  readonly pausedState: JsonValue;
  readonly decisions: readonly Decision[];
}

/**
 * Runs one framework's native agents. The runtime drives every turn through `stream` (a resume
 * through `resumeStream`, where the framework can pause); `Runtime.run` drains that stream, and
 * marks the input `drained` when nothing would see its token events.
 */
export interface Runner<TNative = unknown> {
  readonly name: string;
  readonly supportsStreaming: boolean;
  readonly supportsPause: boolean;
  readonly reservedRunOptions: ReservedRunOptions;
  /**
   * Refuses reserved keys below the top level (LangGraph's `configurable.thread_id`) with
   * `ReservedRunOption`; checked at declaration and for every factory or per-call mapping.
   */
  validateRunOptions?(options: RunOptions): void;
  /** The native agent's tools, for its A2A card's skills (when it declares none). */
  describeTools?(native: TNative): readonly ToolSummary[];
  stream(input: RunnerInput<TNative>): RunnerStream;
  resumeStream?(input: RunnerResumeInput<TNative>): RunnerStream;
}
