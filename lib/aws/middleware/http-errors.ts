import { retryAfterOf } from '../../app/fair-use.js';
import { AgentKernelError, toErrorInfo } from '../../core/errors.js';

export interface ErrorBody {
  type: 'error';
  requestId?: string;
  code: string;
  message: string;
  /** Seconds to wait before retrying (quota-exceeded); also the `Retry-After` header. */
  retryAfter?: number;
}

const STATUS: Record<string, number> = {
  'bad-json': 400,
  'invalid-utf8': 400,
  'too-deep': 400,
  'forbidden-key': 400,
  'invalid-message': 400,
  'invalid-request': 400,
  'invalid-decisions': 400,
  'invalid-seq': 400,
  'invalid-limit': 400,
  'invalid-cursor': 400,
  'unknown-action': 400,
  'reserved-run-option': 400,
  'too-large': 413,
  unauthorized: 401,
  'session-forbidden': 403,
  'agent-not-found': 404,
  'paused-run-not-found': 404,
  'not-found': 404,
  'session-paused': 409,
  'session-conflict': 409,
  'session-busy': 409,
  'run-already-resumed': 409,
  'run-not-cancelable': 409,
  'request-in-progress': 409,
  'request-conflict': 409,
  'model-rate-limited': 429,
  'quota-exceeded': 429,
  'model-error': 502,
  'store-throttled': 503,
  'run-timeout': 504,
};

/** Seconds a client should wait before retrying a code that says "try again shortly". */
const RETRY_AFTER_S: Record<string, number> = {
  'store-throttled': 1,
  'request-in-progress': 1,
};

/** HTTP status of an error code: 4xx for the caller's mistakes, 5xx for ours. */
export function statusOf(code: string): number {
  return STATUS[code] ?? 500;
}

/** Headers an error response carries besides its JSON type: `Retry-After` where a retry helps. */
export function errorHeaders(code: string): Record<string, string> {
  const retryAfter = RETRY_AFTER_S[code];
  return retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) };
}

/** The whole HTTP response for an error body: its status, headers and JSON. */
export function errorResponse(
  body: ErrorBody | { code: string; message: string; retryAfter?: number },
): {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
} {
  const retry =
    body.retryAfter === undefined
      ? errorHeaders(body.code)
      : { 'retry-after': String(body.retryAfter) };
  return {
    statusCode: statusOf(body.code),
    headers: { 'content-type': 'application/json', ...retry },
    body: JSON.stringify(body),
  };
}

/**
 * The body for any thrown value. Our errors keep their message (redacted); a foreign one is
 * logged by the caller and shown only as `internal-error`, never its text.
 */
export function errorBody(
  err: unknown,
  requestId?: string,
  redact: (text: string) => string = (text) => text,
): ErrorBody {
  const info =
    err instanceof AgentKernelError
      ? toErrorInfo(err)
      : { code: 'internal-error', message: 'An unexpected error occurred.' };
  // A provider's error text may echo a key (some proxies do): it leaves through the redactor.
  return {
    type: 'error',
    ...(requestId ? { requestId } : {}),
    ...info,
    message: redact(info.message),
    ...retryAfterOf(err),
  };
}

/** What a front redacts with: the function's redactor (lib/aws/middleware/observability.ts), which learnt the model key. */
export interface Redacting {
  redactor?: { string(text: string): string };
}

export function redactWith(options: Redacting): (text: string) => string {
  const { redactor } = options;
  return redactor ? (text) => redactor.string(text) : (text) => text;
}
