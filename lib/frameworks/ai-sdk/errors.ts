import { APICallError, RetryError } from 'ai';
import { AgentKernelError, ModelError } from '../../core/errors.js';
import { describeCut, isCutStream } from '../base/errors.js';

/** Maps the AI SDK's errors onto ours, with a readable message. */
export function mapAiSdkError(err: unknown): unknown {
  if (err instanceof AgentKernelError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  if (isCutStream(err)) {
    return new ModelError(`The model response was cut off: ${describeCut(err)}`, { cause: err });
  }
  const cause = RetryError.isInstance(err) ? err.lastError : err;
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    if (status === undefined) {
      return new ModelError(`The model endpoint could not be reached: ${cause.message}`, { cause });
    }
    return new ModelError(`The model request failed with HTTP ${status}: ${cause.message}`, {
      status,
      cause,
    });
  }
  return err;
}
