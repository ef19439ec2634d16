import type { StreamEvent } from './events.js';
import type { AgentReply, Request } from './requests.js';
import type { RunOptions } from './run-options.js';
import type { JsonValue } from './session.js';

/** What hooks see of the turn. */
export interface TurnInfo {
  readonly runId: string;
  readonly sessionId: string;
  readonly agent: string;
  readonly principal?: string;
  readonly requests: readonly Request[];
  readonly runOptions: RunOptions;
  /**
   * The run's copy of the framework context. A pre-hook seeds it by setting keys here: the runner
   * hands them to the framework (each framework's page says how), and they are stored with the
   * turn only if it succeeds.
   */
  readonly context: Record<string, unknown>;
  /**
   * A copy of this agent's framework session (its runner's slot of the session: history,
   * checkpoints), undefined on a session's first turn. Read-only: the runner writes it.
   */
  frameworkSession(): JsonValue | undefined;
}

/**
 * Returned by a pre-hook: nothing (go on), new requests (rewrite), or a reply that ends the turn
 * without calling the runner (the session is not changed).
 */
export type PreHookResult =
  | undefined
  | { requests: Request[] }
  | { halt: { text: string; output?: unknown } };

export interface PreHook {
  readonly name: string;
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that returns nothing goes on.
  onRun(turn: TurnInfo): PreHookResult | void | Promise<PreHookResult | void>;
}

/**
 * Returned by `onStreamEvent`: `undefined` keeps the event, `null` or `[]` drops it, an event
 * replaces it, several events expand it. Every returned event must keep the original `type`.
 */
export type StreamEventHookResult = StreamEvent | readonly StreamEvent[] | null | undefined;

export interface PostHook {
  readonly name: string;
  /** Runs after the runner succeeded, before the session is stored; may rewrite the reply. */
  onRun?(
    turn: TurnInfo,
    reply: AgentReply,
  ): AgentReply | undefined | Promise<AgentReply | undefined>;
  /**
   * Sees each event the runner streams (not the runtime's own run-started/-finished/-error).
   * Throw `StreamHalt` to stop the run.
   */
  onStreamEvent?(
    event: StreamEvent,
    turn: TurnInfo,
  ): StreamEventHookResult | Promise<StreamEventHookResult>;
}
