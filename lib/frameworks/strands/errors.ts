import { ModelThrottledError, ModelError as StrandsModelError } from '@strands-agents/sdk';
import { AgentKernelError, describeError, ModelError, RunnerError } from '../../core/errors.js';
import { describeCut, isCutStream } from '../base/errors.js';

/** An AWS SDK service exception (Bedrock's), or an HTTP client error with a `status`. */
function httpStatus(err: unknown): number | undefined {
  const e = err as { $metadata?: { httpStatusCode?: unknown }; status?: unknown } | undefined;
  const status = e?.$metadata?.httpStatusCode ?? e?.status;
  return typeof status === 'number' ? status : undefined;
}

/** Maps Strands' errors (and the provider's underneath) onto ours, with a readable message. */
export function mapStrandsError(err: unknown): unknown {
  if (err instanceof AgentKernelError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  const cause = err instanceof StrandsModelError ? (err.cause ?? err) : err;
  if (isCutStream(cause)) {
    return new ModelError(`The model response was cut off: ${describeCut(cause)}`, { cause: err });
  }
  const status = httpStatus(cause) ?? (err instanceof ModelThrottledError ? 429 : undefined);
  if (status !== undefined) {
    const name = (cause as { name?: unknown }).name;
    const detail = `${typeof name === 'string' && name !== 'Error' ? `${name}: ` : ''}${describeError(cause)}`;
    return new ModelError(`The model request failed with HTTP ${status}: ${detail}`, {
      status,
      cause: err,
    });
  }
  if (err instanceof StrandsModelError) {
    return new ModelError(`The model request failed: ${describeError(cause)}`, { cause: err });
  }
  return err;
}

/** A run Strands stopped at one of its invocation limits (`limits.turns`, token caps). */
export function limitReached(agent: string, stopReason: string): RunnerError {
  return new RunnerError(`Agent "${agent}" reached its ${stopReason} limit.`, {
    code: stopReason === 'limitTurns' ? 'max-turns-exceeded' : 'limit-exceeded',
  });
}
