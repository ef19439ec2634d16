import {
  type BaseAgent,
  type BaseTool,
  type Context,
  isBaseTool,
  isFunctionTool,
  isLlmAgent,
} from '@google/adk';
import { tryToolContext } from '../../core/tool-context.js';
import {
  asksToRunAgain,
  effectsOf,
  guardNativeTool,
  unknownOutcomeError,
} from '../../tools/guard.js';
import { traceNativeTool, tracingActive } from '../base/native-tool-span.js';

/** Tools exported from a ToolSpec: the executor guards their calls. */
const executorTools = new WeakSet<object>();
/** Tools already wrapped in place. */
const guardedTools = new WeakSet<object>();

export function markExecutorTool<T extends object>(tool: T): T {
  executorTools.add(tool);
  return tool;
}

type Execute = (input: unknown, context?: Context) => unknown;
type Confirm = boolean | ((input: unknown, context?: Context) => boolean | Promise<boolean>);
/** FunctionTool's private fields, reached at run time (ADK keeps them as plain properties). */
type FunctionToolInternals = { execute: Execute; requireConfirmation: Confirm };

/**
 * Wraps the native tools of every agent of the tree in place, once: each call runs at most once
 * across the run's attempts (`guardNativeTool`, keyed by ADK's `functionCallId`) and only its
 * body is guarded, so ADK's own confirmation gate still asks before it. A tool declared
 * `onUnknownOutcome: 'pause'` whose call an earlier attempt left unfinished asks at that gate
 * (`asksToRunAgain`). In a traced run each call is a `tool` span (ADK hands the model an
 * error response for a throw: the span records the failure). Neither journal nor tracing: the
 * wrappers only forward.
 */
export function guardAgentTools(agent: BaseAgent): void {
  if (isLlmAgent(agent)) {
    for (const tool of agent.tools) if (isBaseTool(tool)) guardTool(tool);
  }
  for (const sub of agent.subAgents) guardAgentTools(sub);
}

function guardTool(tool: BaseTool): void {
  if (executorTools.has(tool) || guardedTools.has(tool)) return;
  guardedTools.add(tool);
  if (!isFunctionTool(tool)) {
    const runAsync = tool.runAsync.bind(tool);
    tool.runAsync = (request) =>
      guarded(tool, request.toolContext?.functionCallId, request.args, () => runAsync(request));
    return;
  }
  const internals = tool as unknown as FunctionToolInternals;
  const execute = internals.execute;
  internals.execute = (input, context) =>
    guarded(tool, context?.functionCallId, input, () => execute(input, context));
  const confirm = internals.requireConfirmation;
  internals.requireConfirmation = async (input, context) => {
    if (asksToRunAgain(context?.functionCallId, effectsOf(tool))) return true;
    return typeof confirm === 'function' ? confirm(input, context) : confirm;
  };
}

async function guarded(
  tool: BaseTool,
  callId: string | undefined,
  input: unknown,
  run: () => unknown,
): Promise<unknown> {
  const journaled = !!tryToolContext()?.journal;
  if (!journaled && !tracingActive()) return run();
  return traceNativeTool({ tool: tool.name, callId, input }, async (fail) => {
    if (!journaled) return await run();
    const effects = effectsOf(tool);
    try {
      return await guardNativeTool(
        { callId, tool: tool.name, ...(effects ? { effects } : {}) },
        async () => await run(),
      );
    } catch (err) {
      // Not run again: the model reads why, as it reads a ToolSpec tool's failure.
      const visible = unknownOutcomeError(err);
      if (!visible) throw err;
      fail(err);
      return visible;
    }
  });
}
