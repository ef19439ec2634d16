import type { Tool, ToolSet } from 'ai';
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

/** Tools exported from a ToolSpec: the executor guards their calls. */
const executorTools = new WeakSet<object>();

/** Marks a ToolSpec's export; its declared effects are the spec's (read by `effectsOf`). */
export function markExecutorTool<T extends object>(tool: T, effects?: ToolEffects): T {
  executorTools.add(tool);
  return effects ? declareEffects(tool, effects) : tool;
}

/**
 * The agent's tools for one journaled run: each native tool's `execute` runs at most once across
 * the run's attempts, keyed by the SDK's `toolCallId`, with `ctx.idempotencyKey` bound. A new
 * record per run (the agent's own tools are not changed). ToolSpec tools (the executor guards
 * them) get only the gate of a call to run again; tools without `execute` pass as they are.
 * In a traced run each native call is a `tool` span (the SDK turns a throw into a `tool-error`
 * part, so the span is the only record of the failure). Neither journal nor tracing: as given.
 */
export function guardedToolSet(tools: ToolSet | undefined): ToolSet | undefined {
  const journaled = !!tryToolContext()?.journal;
  if (!tools || !(journaled || tracingActive())) return tools;
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => [name, guarded(name, tool, journaled)]),
  );
}

/** One tool of a set, as the SDK types a set's members. */
type SetTool = ToolSet[string];

function guarded(name: string, tool: SetTool, journaled: boolean): SetTool {
  const execute = tool.execute;
  if (!execute) return tool;
  const effects = effectsOf(tool);
  // A `pause` tool's call left unfinished by an earlier attempt waits at the SDK's own gate.
  const approval = tool.needsApproval;
  const needsApproval = async (input: unknown, options: { toolCallId: string }) => {
    if (asksToRunAgain(options.toolCallId, effects)) return true;
    return typeof approval === 'function'
      ? approval.call(tool, input, options as Parameters<typeof approval>[1])
      : (approval ?? false);
  };
  // A ToolSpec tool: the executor guards the call, approved at the gate it runs once more.
  if (executorTools.has(tool)) {
    return effects?.onUnknownOutcome === 'pause' ? ({ ...tool, needsApproval } as Tool) : tool;
  }
  type Options = Parameters<typeof execute>[1];
  const run = async (input: unknown, options: Options, fail: (error: unknown) => void) => {
    if (!journaled) return execute.call(tool, input, options);
    try {
      return await guardNativeTool(
        { callId: options.toolCallId, tool: name, ...(effects ? { effects } : {}) },
        async () => settle(await execute.call(tool, input, options)),
      );
    } catch (err) {
      // Not run again: the model reads why, as it reads a ToolSpec tool's failure.
      const visible = unknownOutcomeError(err);
      if (!visible) throw err;
      fail(err);
      return visible;
    }
  };
  return {
    ...tool,
    ...(journaled ? { needsApproval } : {}),
    execute: (input: unknown, options: Options) =>
      traceNativeTool({ tool: name, callId: options.toolCallId, input }, (fail) =>
        run(input, options, fail),
      ),
  } as SetTool;
}

/** A streaming tool (an async iterable of outputs) is recorded by its final output. */
async function settle(result: unknown): Promise<unknown> {
  if (typeof result !== 'object' || result === null || !(Symbol.asyncIterator in result)) {
    return result;
  }
  let last: unknown;
  for await (const output of result as AsyncIterable<unknown>) last = output;
  return last;
}
