import type { RunContext, Runner as SdkRunner, Tool } from '@openai/agents';
import { type Span, startChildSpan } from '../../core/tracer.js';

/** Tools exported from a ToolSpec: the executor already opens their span. */
const executorTools = new WeakSet<object>();

export function markExecutorTool<T extends object>(tool: T): T {
  executorTools.add(tool);
  return tool;
}

/** True for a tool exported from a ToolSpec (the executor traces and guards its calls). */
export function isExecutorTool(tool: object): boolean {
  return executorTools.has(tool);
}

/**
 * The SDK's own `tool()`s never reach our executor: their calls become `tool` spans through the
 * runner's lifecycle events (emitted inside the run, so the run span is the active parent). Spans
 * are kept per run context, so concurrent runs on one SDK runner never mix them up.
 */
export function traceNativeTools(runner: SdkRunner): void {
  const open = new WeakMap<RunContext<unknown>, Map<string, Span>>();
  const keyOf = (toolCall: unknown): string => {
    const call = toolCall as { callId?: unknown; id?: unknown } | undefined;
    return String(call?.callId ?? call?.id ?? '');
  };
  runner.on('agent_tool_start', (context, _agent, tool: Tool, { toolCall }) => {
    if (executorTools.has(tool)) return;
    const callId = keyOf(toolCall);
    let spans = open.get(context);
    if (!spans) {
      spans = new Map();
      open.set(context, spans);
    }
    spans.set(callId, startChildSpan(tool.name, 'tool', { tool: tool.name, callId }));
  });
  runner.on('agent_tool_end', (context, _agent, tool: Tool, result, { toolCall }) => {
    if (executorTools.has(tool)) return;
    const spans = open.get(context);
    const callId = keyOf(toolCall);
    const span = spans?.get(callId);
    if (!span) return;
    spans?.delete(callId);
    // The SDK reports an aborted call with this output; other failures reach the model as text.
    if (result === 'aborted') span.recordError(new Error('The tool call was aborted.'));
    span.end();
  });
}
