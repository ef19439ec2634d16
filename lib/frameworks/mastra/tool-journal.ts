import type { ToolEffects } from '../../core/journal.js';
import { tryToolContext } from '../../core/tool-context.js';
import {
  asksToRunAgain,
  declareEffects,
  effectsOf,
  guardNativeTool,
  unknownOutcomeError,
} from '../../tools/guard.js';
import { traceNativeTool, tracingActive } from '../base/native-tool-span.js';
import type { CallIndex } from './model-journal.js';

/** Tools exported from a ToolSpec: the executor guards their calls. */
const executorTools = new WeakSet<object>();

/** Marks a ToolSpec's export; its declared effects are the spec's (read by `effectsOf`). */
export function markExecutorTool<T extends object>(tool: T, effects?: ToolEffects): T {
  executorTools.add(tool);
  return effects ? declareEffects(tool, effects) : tool;
}

type Execute = (input: unknown, context: unknown) => unknown;

/**
 * The agent's tools for one run: each native tool's `execute` runs at most once across the run's
 * attempts, keyed by the model's tool call id, with `ctx.idempotencyKey` bound. New objects per
 * run (the agent's own tools are not changed); ToolSpec tools are guarded by the executor (a
 * `pause` one gets the gate of a call to run again). In a traced run each native call is a
 * `tool` span (Mastra turns a throw into a `tool-error` chunk: the span records the failure).
 * Undefined with neither a journal nor tracing.
 */
export function guardedTools(
  tools: Record<string, unknown>,
  calls: CallIndex,
): Record<string, unknown> | undefined {
  const journaled = !!tryToolContext()?.journal;
  if (!journaled && !tracingActive()) return undefined;
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => [name, guarded(name, tool, calls, journaled)]),
  );
}

type ApprovalFn = (args: unknown, context?: unknown) => unknown;
/** What Mastra's approval gate reads of a tool: its policy function, else its flag. */
interface ApprovalFields {
  needsApprovalFn?: ApprovalFn;
  readonly requireApproval?: unknown;
}

function guarded(name: string, tool: unknown, calls: CallIndex, journaled: boolean): unknown {
  if (typeof tool !== 'object' || tool === null) return tool;
  const execute = (tool as { execute?: Execute }).execute;
  if (typeof execute !== 'function') return tool;
  const effects = effectsOf(tool);
  const pause = effects?.onUnknownOutcome === 'pause';
  // A ToolSpec tool: the executor guards the call; approved at the gate, it runs once more.
  if (executorTools.has(tool) && !pause) return tool;
  const copy = Object.create(Object.getPrototypeOf(tool), Object.getOwnPropertyDescriptors(tool));
  if (effects && pause && journaled) gateUnknownOutcomes(copy, name, effects, calls);
  if (executorTools.has(tool)) return copy;
  const run = async (input: unknown, context: unknown, fail: (error: unknown) => void) => {
    const callId = callIdOf(context);
    if (callId === undefined || !journaled) return execute.call(tool, input, context);
    try {
      return await guardNativeTool({ callId, tool: name, ...(effects ? { effects } : {}) }, () =>
        Promise.resolve(execute.call(tool, input, context)),
      );
    } catch (err) {
      // Not run again: the model reads why, as it reads a ToolSpec tool's failure.
      const visible = unknownOutcomeError(err);
      if (!visible) throw err;
      fail(err);
      return visible;
    }
  };
  copy.execute = (input: unknown, context: unknown) =>
    traceNativeTool({ tool: name, callId: callIdOf(context), input }, (fail) =>
      run(input, context, fail),
    );
  return copy;
}

/**
 * A `pause` tool's call left unfinished by an earlier attempt waits at Mastra's own approval
 * gate. Mastra asks its policy with the arguments only: the call is found by name and arguments
 * among the model's calls of this run.
 */
function gateUnknownOutcomes(
  copy: ApprovalFields,
  name: string,
  effects: ToolEffects,
  calls: CallIndex,
) {
  const own = copy.needsApprovalFn;
  const flag = !!copy.requireApproval;
  copy.needsApprovalFn = async (args: unknown, context?: unknown) => {
    if (calls.idsOf(name, args).some((id) => asksToRunAgain(id, effects))) return true;
    return own ? own(args, context) : flag;
  };
}

function callIdOf(context: unknown): string | undefined {
  const id = (context as { agent?: { toolCallId?: unknown } } | undefined)?.agent?.toolCallId;
  return typeof id === 'string' && id ? id : undefined;
}
