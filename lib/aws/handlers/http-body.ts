import { checkId } from '../../app/validation.js';
import type { RawMessage } from '../../transport/parse.js';

/** What an HTTP API or Function URL event says about its body and headers. */
interface BodyEvent {
  body?: string | undefined;
  isBase64Encoded?: boolean;
  headers?: Record<string, string | undefined> | undefined;
}

/**
 * The body for the input gate: text as the event carries it, or the bytes of a base64 body
 * (API Gateway and Function URLs base64 what is not text), which the gate requires to be UTF-8.
 */
export function bodyOf(event: BodyEvent): RawMessage {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body;
}

/** The `Idempotency-Key` header is the request's id; a malformed one is a 400, not ignored. */
export function idempotencyKey(event: BodyEvent): { requestId?: string } {
  const key = event.headers?.['idempotency-key'];
  return key === undefined ? {} : { requestId: checkId('Idempotency-Key', key) };
}
