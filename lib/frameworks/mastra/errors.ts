import { AgentKernelError, ModelError } from '../../core/errors.js';
import { describeCut, isCutStream } from '../base/errors.js';

/** An AI SDK provider's HTTP error, read structurally (Mastra bundles its own AI SDK copies). */
interface ApiCallError {
  readonly name: 'AI_APICallError';
  readonly message: string;
  readonly statusCode?: number;
}

/** Maps what a Mastra run fails with (often the provider's error, sometimes wrapped) onto ours. */
export function mapMastraError(err: unknown): unknown {
  if (err instanceof AgentKernelError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  if (isCutStream(err)) {
    return new ModelError(`The model response was cut off: ${describeCut(err)}`, { cause: err });
  }
  const api = findApiCallError(err);
  if (!api) return err;
  const status = api.statusCode;
  if (status === undefined) {
    return new ModelError(`The model endpoint could not be reached: ${api.message}`, {
      cause: api,
    });
  }
  return new ModelError(`The model request failed with HTTP ${status}: ${api.message}`, {
    status,
    cause: api,
  });
}

/** The provider error itself, or one of its causes, or a retry's last error. */
function findApiCallError(err: unknown): ApiCallError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const record = current as Record<string, unknown>;
    if (record.name === 'AI_APICallError') return current as ApiCallError;
    current = record.name === 'AI_RetryError' ? record.lastError : record.cause;
  }
  return undefined;
}
