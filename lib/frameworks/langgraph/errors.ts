import { GraphRecursionError } from '@langchain/langgraph';
import { AgentKernelError, describeError, ModelError, RunnerError } from '../../core/errors.js';
import { describeCut, isCutStream } from '../base/errors.js';

/**
 * A LangChain tool called in a durable run without the model's tool call (a custom node's
 * `tool.invoke(args)`): nothing identifies the call across attempts, so a retried run could not
 * tell that it already ran. Refused before the tool runs.
 */
export class UnguardedToolCall extends AgentKernelError {
  constructor(tool: string) {
    super(
      'unguarded-tool-call',
      `The LangGraph tool "${tool}" was called without a tool call id in a durable run, so a ` +
        "retried run could not tell whether it already ran. Call it with the model's tool call " +
        '(`tool.invoke(toolCall)`, as a ToolNode does), or declare it read-only with ' +
        '`withToolEffects(tool, { readOnly: true })`.',
    );
  }
}

/** Maps LangGraph's and the model client's errors onto ours, with a readable message. */
export function mapLangGraphError(err: unknown, agent: string): unknown {
  if (err instanceof AgentKernelError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  if (isCutStream(err)) {
    return new ModelError(`The model response was cut off: ${describeCut(err)}`, { cause: err });
  }
  if (err instanceof GraphRecursionError) {
    return new RunnerError(`Agent "${agent}" exceeded its recursion limit.`, {
      code: 'max-turns-exceeded',
      cause: err,
    });
  }
  const status = (err as { status?: unknown })?.status;
  if (typeof status === 'number') {
    const detail = describeError(err).replace(/^\d{3}\s+/, '');
    return new ModelError(`The model request failed with HTTP ${status}: ${detail}`, {
      status,
      cause: err,
    });
  }
  const name = (err as { constructor?: { name?: string } })?.constructor?.name;
  if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') {
    return new ModelError(`The model endpoint could not be reached: ${describeError(err)}`, {
      cause: err,
    });
  }
  return err;
}
