import type { Event } from '@google/adk';
import { AgentKernelError, ModelError, RunnerError } from '../../core/errors.js';
import { describeCut, isCutStream } from '../base/errors.js';

/** ADK's own message when `RunConfig.maxLlmCalls` is exceeded (a plain Error). */
const LLM_CALLS_LIMIT = /Max number of llm calls limit of \d+ exceeded/;

/** Maps an error thrown by ADK or by `@google/genai` onto ours, with a readable message. */
export function mapAdkError(err: unknown): unknown {
  if (err instanceof AgentKernelError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  if (isCutStream(err)) {
    return new ModelError(`The model response was cut off: ${describeCut(err)}`, { cause: err });
  }
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && err instanceof Error) {
    return new ModelError(`The model request failed with HTTP ${status}: ${detail(err.message)}`, {
      status,
      cause: err,
    });
  }
  if (err instanceof Error && LLM_CALLS_LIMIT.test(err.message)) return limitExceeded(err);
  if (err instanceof TypeError && err.message === 'fetch failed') {
    return new ModelError(`The model endpoint could not be reached: ${err.message}`, {
      cause: err,
    });
  }
  return err;
}

/**
 * ADK turns a failed model call into an event with `errorCode` / `errorMessage` (the HTTP status
 * parsed from the client's message) and a finish other than STOP into one too. `thrown` is the
 * original error when the runner's model wrapper saw it.
 */
export function mapAdkEventError(event: Event, thrown?: unknown): unknown {
  if (thrown !== undefined) {
    const mapped = mapAdkError(thrown);
    if (mapped instanceof AgentKernelError) return mapped;
  }
  const message = event.errorMessage ?? event.errorCode ?? 'unknown error';
  if (LLM_CALLS_LIMIT.test(message)) return limitExceeded(thrown);
  const status = Number(event.errorCode);
  if (Number.isInteger(status) && status >= 400 && status < 600) {
    return new ModelError(`The model request failed with HTTP ${status}: ${message}`, {
      status,
      cause: thrown,
    });
  }
  return new ModelError(`The model call failed (${event.errorCode ?? 'error'}): ${message}`, {
    cause: thrown,
  });
}

function limitExceeded(cause: unknown): RunnerError {
  return new RunnerError('The agent exceeded its maximum number of model calls (maxLlmCalls).', {
    code: 'max-turns-exceeded',
    cause,
  });
}

/** The message of Google's error envelope when the client put the JSON in `message`. */
function detail(message: string): string {
  try {
    const parsed = JSON.parse(message) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
  } catch {
    // not JSON: the message as it is
  }
  return message;
}
