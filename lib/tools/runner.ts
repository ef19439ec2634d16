import type { ToolLedger } from '../core/ledger.js';
import { type ToolContext, tryToolContext } from '../core/tool-context.js';
import type { ApprovalPort } from './approval.js';
import type { ResultCache } from './cache.js';
import { standaloneContext, type ToolSpec } from './spec.js';

// The tool runner's port and the Executor's options: what integrations and callers build on,
// apart from the Executor's own pipeline (executor.ts).

/** What hooks see of one call; `args` are the validated (possibly rewritten) arguments. */
export interface ToolCallInfo {
  readonly tool: string;
  readonly callId: string;
  readonly args: unknown;
  readonly ctx: ToolContext;
}

export type ToolOutcome =
  | { readonly ok: true; readonly result: unknown; readonly cached: boolean }
  | { readonly ok: false; readonly error: unknown };

/**
 * Runs around every call. `before` may rewrite the arguments (they are validated again) or throw
 * (e.g. `GuardrailBlocked`); `after` sees every outcome and may replace a successful result.
 */
export interface ToolHook {
  readonly name: string;
  before?(
    call: ToolCallInfo,
  ): undefined | { args: unknown } | Promise<undefined | { args: unknown }>;
  after?(
    call: ToolCallInfo,
    outcome: ToolOutcome,
  ): undefined | { result: unknown } | Promise<undefined | { result: unknown }>;
}

export interface RunSpecOptions {
  /** The framework's call id (recorded in the ledger, visible as `ctx.callId`). */
  readonly callId: string;
  /** Overrides the executor's approval port for this call (an integration's bound port). */
  readonly approval?: ApprovalPort;
  /**
   * The journal's key for this execution when it is not the call id: a call run again after its
   * handler paused the framework (LangGraph's `interrupt()`) is journaled as `<callId>#n`.
   */
  readonly entry?: string;
}

/**
 * The port every integration calls: one tool call under the runner's policy. `ctx` may be
 * partial (a plugin that does not import this project passes `{ callId }`): the runner fills in
 * the rest from the run's tool context, so plugins never need our AsyncLocalStorage.
 */
export interface ToolRunner {
  runSpec<A, R>(
    spec: ToolSpec<A, R>,
    args: unknown,
    ctx: Partial<ToolContext>,
    options: RunSpecOptions,
  ): Promise<R>;
}

/** The run's tool context (or a standalone one) with `partial` over it; both signals count. */
export function completeContext(partial: Partial<ToolContext>): ToolContext {
  const base = tryToolContext() ?? standaloneContext();
  const signal =
    partial.signal && partial.signal !== base.signal
      ? AbortSignal.any([base.signal, partial.signal])
      : base.signal;
  return { ...base, ...partial, signal };
}

export interface RunLimits {
  /** Tool calls (of any tool, valid or not) one run may make. */
  readonly toolCallsPerRun?: number;
  /** Calls of one tool one run may make. */
  readonly callsPerToolPerRun?: number;
}

export interface ExecutorOptions {
  /** Decides `confirm` tools; without one they are denied (fail closed). */
  approval?: ApprovalPort;
  ledger?: ToolLedger;
  hooks?: readonly ToolHook[];
  limits?: RunLimits;
  /** Applies to tools without their own `timeoutMs`. */
  defaultTimeoutMs?: number;
  cache?: ResultCache;
  now?: () => number;
}
