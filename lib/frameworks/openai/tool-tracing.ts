import {
  getCurrentSpan,
  getCurrentTrace,
  NoopSpan,
  NoopTrace,
  type RunContext,
  type Runner as SdkRunner,
  type Tool,
  type TracingProcessor,
  withTraceContext,
} from '@openai/agents';
import { type Span, startChildSpan } from '../../core/tracer.js';
import type { NativeFunctionTool } from './native.js';

type Invoke = NativeFunctionTool['invoke'];

/** A native tool's call that threw: the SDK turned it into text for the model. */
export class NativeToolFailed extends Error {
  override readonly name = 'NativeToolFailed';
}

/** Failures seen by `probeFailures`, per run context and call id, read at `agent_tool_end`. */
const failures = new WeakMap<RunContext<unknown>, Map<string, NativeToolFailed>>();

const IDLE: TracingProcessor = {
  async onTraceStart() {},
  async onTraceEnd() {},
  async onSpanStart() {},
  async onSpanEnd() {},
  async shutdown() {},
  async forceFlush() {},
};

/** Stands in as the SDK's current span: the SDK reports a swallowed tool error to it. */
class FailureProbe extends NoopSpan<{
  type: 'function';
  name: string;
  input: string;
  output: string;
}> {
  failure: NativeToolFailed | undefined;
  constructor() {
    super({ type: 'function', name: 'probe', input: '', output: '' }, IDLE);
  }
  override setError(error?: { message: string; data?: Record<string, unknown> }): void {
    const detail = error?.data?.error;
    this.failure = new NativeToolFailed(
      typeof detail === 'string' ? detail : (error?.message ?? 'The tool failed.'),
    );
  }
}

/**
 * A `tool()`'s invoke catches the tool's error and returns the errorFunction's text, so the
 * lifecycle events cannot tell a failure from a result. The one signal the SDK gives is
 * `setError` on its current span: with the SDK's tracing off (ours is the backend) the call runs
 * under a no-op span that records it (spans the tool opens stay no-ops too). A call under a real
 * SDK span (the SDK's own tracing on) is left alone.
 */
export function probeFailures(invoke: Invoke): Invoke {
  return async (runContext, input, details) => {
    const current = getCurrentSpan();
    if (current && !(current instanceof NoopSpan)) return invoke(runContext, input, details);
    const probe = new FailureProbe();
    const trace = getCurrentTrace() ?? new NoopTrace();
    const output = await withTraceContext({ trace, span: probe }, () =>
      invoke(runContext, input, details),
    );
    if (probe.failure) {
      let seen = failures.get(runContext);
      if (!seen) {
        seen = new Map();
        failures.set(runContext, seen);
      }
      seen.set(keyOf((details as { toolCall?: unknown } | undefined)?.toolCall), probe.failure);
    }
    return output;
  };
}

function keyOf(toolCall: unknown): string {
  const call = toolCall as { callId?: unknown; id?: unknown } | undefined;
  return String(call?.callId ?? call?.id ?? '');
}

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
    const failure = failures.get(context)?.get(callId);
    failures.get(context)?.delete(callId);
    if (failure) span.recordError(failure);
    else if (result === 'aborted') span.recordError(new Error('The tool call was aborted.'));
    span.end();
  });
}
