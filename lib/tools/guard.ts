import { ToolOutcomeUnknown } from '../core/errors.js';
import type { ToolEffects } from '../core/journal.js';
import { idempotencyKeyOf } from '../core/run-journal.js';
import { runWithToolContext, type ToolContext, tryToolContext } from '../core/tool-context.js';
import { ApprovalPending, type ModelVisibleError, modelVisibleError } from './errors.js';
import { standaloneContext } from './spec.js';

/** One call as the journal guard sees it. */
export interface GuardedCall {
  readonly tool: string;
  readonly callId: string;
  readonly effects?: ToolEffects;
  /** Shown to the person when the call's unknown outcome pauses the run. */
  readonly args?: unknown;
  /**
   * The journal's key for this execution when it is not the call id (LangGraph journals a call
   * resumed after `interrupt()` as `<callId>#1`); the tool still sees the call's id and key.
   */
  readonly entry?: string;
}

/** The context a guarded call runs with: its call id and stable idempotency key. */
export type GuardedContext = ToolContext & {
  readonly callId: string;
  readonly idempotencyKey: string;
};

const UNKNOWN_OUTCOME_SUFFIX = ':unknown-outcome';

/** The interruption id of a call whose unknown outcome waits for a person. */
export function unknownOutcomeId(callId: string): string {
  return `${callId}${UNKNOWN_OUTCOME_SUFFIX}`;
}

/** What the person is asked when a call's unknown outcome pauses the run. */
export const UNKNOWN_OUTCOME_PROMPT =
  'This call started in an earlier attempt of the run and its outcome is unknown (the process ' +
  'stopped during it). Approve to run it again, deny to tell the model its outcome is unknown.';

/**
 * Runs one tool call under the run's journal (at most once across attempts: a recorded outcome is
 * replayed, an unfinished one becomes `ToolOutcomeUnknown` or a pause) with `idempotencyKey` in
 * its context. Without a journal the call simply runs, still with its key.
 */
export async function guardCall<T>(
  ctx: ToolContext,
  call: GuardedCall,
  run: (ctx: GuardedContext) => Promise<T>,
): Promise<T> {
  const { callId, tool } = call;
  const journal = ctx.journal;
  // Outside a run's journal a caller's own key (an MCP client's) stays what the tool sees.
  const key = journal
    ? journal.idempotencyKey(callId)
    : (ctx.idempotencyKey ?? idempotencyKeyOf(ctx.runId, callId));
  const callCtx: GuardedContext = { ...ctx, callId, idempotencyKey: key };
  const invoke = () => runWithToolContext(callCtx, () => run(callCtx));
  if (!journal) return invoke();
  const entry = call.entry ?? callId;
  const guarded = { callId: entry, tool, ...(call.effects ? { effects: call.effects } : {}) };
  try {
    return await journal.tool(guarded, invoke);
  } catch (err) {
    if (!(err instanceof ToolOutcomeUnknown) || !err.pause) throw err;
    // Its own interruption id: the call's original approval must not count as a rerun decision.
    const id = unknownOutcomeId(callId);
    const decision = ctx.decisions?.[id];
    // A person checked the call: approved runs it again under the same key.
    if (decision?.status === 'approved') {
      return journal.tool({ ...guarded, effects: { ...call.effects, idempotent: true } }, invoke);
    }
    if (decision?.status === 'denied') throw new ToolOutcomeUnknown(tool, callId);
    throw new ApprovalPending(tool, id, call.args ?? null, UNKNOWN_OUTCOME_PROMPT);
  }
}

/**
 * For integrations that wrap a framework's *native* tools (OpenAI `tool()`, AI SDK `tool()`,
 * LangChain tools), which never reach the Executor: runs `run` under the journal guard with
 * `callId` and `idempotencyKey` in the tool context (`currentToolContext()` inside the tool).
 * Throws `ToolOutcomeUnknown` / `RecordedToolFailure` (show them with `modelVisibleError`) and
 * `ApprovalPending` (pause the run) like a ToolSpec call.
 */
export async function guardNativeTool<T>(
  call: Omit<GuardedCall, 'callId'> & { readonly callId: string | undefined },
  run: (ctx: ToolContext) => Promise<T> | T,
): Promise<T> {
  const ctx = tryToolContext() ?? standaloneContext();
  const { callId } = call;
  // A framework that gives no call id (a direct call outside a run loop): nothing to key it by.
  if (!callId) return run(ctx);
  return guardCall(ctx, { ...call, callId }, async (callCtx) => run(callCtx));
}

/**
 * The model-visible error of a call whose outcome is unknown; other errors are not ours. A
 * runner whose framework cannot pause inside a call (its gate already passed: the call was
 * approved before) gets the pause request as `tool-outcome-unknown` too: never a second run.
 */
export function unknownOutcomeError(err: unknown): ModelVisibleError | undefined {
  if (err instanceof ToolOutcomeUnknown) return modelVisibleError(err);
  const asked = err instanceof ApprovalPending ? err.interruption : undefined;
  if (!asked?.id.endsWith(UNKNOWN_OUTCOME_SUFFIX)) return undefined;
  const callId = asked.id.slice(0, -UNKNOWN_OUTCOME_SUFFIX.length);
  return modelVisibleError(new ToolOutcomeUnknown(asked.toolName, callId));
}

/** Effects declared for native tools, by the tool object (no property added to it). */
const nativeEffects = new WeakMap<object, ToolEffects>();

/**
 * Declares what running a framework's native tool again does (`readOnly`, `idempotent`,
 * `onUnknownOutcome`), for runners that guard native tools: they read it with `effectsOf`.
 * Returns the tool, so it wraps a definition: `declareEffects(tool({...}), { readOnly: true })`.
 * Each framework folder re-exports it as `withToolEffects`.
 */
export function declareEffects<T extends object>(tool: T, effects: ToolEffects): T {
  nativeEffects.set(tool, Object.freeze({ ...effects }));
  return tool;
}

/** The effects declared for a native tool (`declareEffects`), if any. */
export function effectsOf(tool: object): ToolEffects | undefined {
  return nativeEffects.get(tool);
}

/**
 * For runners that pause native tools through their framework's own approval gate (OpenAI and
 * AI SDK `needsApproval`): true when this call of a tool declared `onUnknownOutcome: 'pause'`
 * was started by an earlier attempt and never finished, so a person decides whether it runs
 * again (approved, `guardCall` reruns it under the same key; denied, the model reads the denial).
 */
export function asksToRunAgain(callId: string | undefined, effects: ToolEffects | undefined) {
  const journal = tryToolContext()?.journal;
  if (!callId || !journal || effects?.onUnknownOutcome !== 'pause') return false;
  return journal.callState(callId) === 'started';
}

/**
 * The interruption a runner reports for a call its framework's gate paused: a call started and
 * never finished waits for a rerun decision (`unknownOutcomeId`), never for its first approval.
 */
export function gateInterruption(callId: string): { id: string; message?: string } {
  const journal = tryToolContext()?.journal;
  if (journal?.callState(callId) !== 'started') return { id: callId };
  return { id: unknownOutcomeId(callId), message: UNKNOWN_OUTCOME_PROMPT };
}

/** The decision for a call a framework's gate paused, under either of its interruption ids. */
export function gateDecision<D extends { readonly id: string }>(
  decisions: readonly D[],
  callId: string,
): D | undefined {
  return decisions.find((d) => d.id === callId || d.id === unknownOutcomeId(callId));
}
