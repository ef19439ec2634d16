import type { Tool, ToolSet } from 'ai';
import { tryToolContext } from '../../core/tool-context.js';
import {
  asksToRunAgain,
  effectsOf,
  guardNativeTool,
  unknownOutcomeError,
} from '../../tools/guard.js';

/** Tools exported from a ToolSpec: the executor guards their calls. */
const executorTools = new WeakSet<object>();

export function markExecutorTool<T extends object>(tool: T): T {
  executorTools.add(tool);
  return tool;
}

/**
 * The agent's tools for one journaled run: each native tool's `execute` runs at most once across
 * the run's attempts, keyed by the SDK's `toolCallId`, with `ctx.idempotencyKey` bound. A new
 * record per run (the agent's own tools are not changed); ToolSpec tools and tools without
 * `execute` pass as they are. Without a journal the set is returned as given.
 */
export function guardedToolSet(tools: ToolSet | undefined): ToolSet | undefined {
  if (!tools || !tryToolContext()?.journal) return tools;
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => [name, guarded(name, tool)]),
  );
}

function guarded(name: string, tool: Tool<any, any>): Tool<any, any> {
  const execute = tool.execute;
  if (!execute || executorTools.has(tool)) return tool;
  const effects = effectsOf(tool);
  const approval = tool.needsApproval;
  return {
    ...tool,
    // A `pause` tool's call left unfinished by an earlier attempt waits at the SDK's own gate.
    needsApproval: async (input: unknown, options: { toolCallId: string }) => {
      if (asksToRunAgain(options.toolCallId, effects)) return true;
      return typeof approval === 'function'
        ? approval.call(tool, input, options as Parameters<typeof approval>[1])
        : (approval ?? false);
    },
    execute: async (input: unknown, options: Parameters<typeof execute>[1]) => {
      try {
        return await guardNativeTool(
          { callId: options.toolCallId, tool: name, ...(effects ? { effects } : {}) },
          async () => settle(await execute.call(tool, input, options)),
        );
      } catch (err) {
        // Not run again: the model reads why, as it reads a ToolSpec tool's failure.
        const visible = unknownOutcomeError(err);
        if (visible) return visible;
        throw err;
      }
    },
  } as Tool<any, any>;
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
