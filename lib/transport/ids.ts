/**
 * The id rules every edge applies before anything else reads an id: no zod, so the authorizer
 * (which imports only this) stays small. protocol.ts builds its schemas from the same rules.
 */

/** Session, run and request ids travel in table keys, URLs and queue keys. */
export const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const SAFE_ID_RULE = '1-128 characters of A-Z a-z 0-9 . _ : -';

/** A principal: what the authorizer puts in the context, the job carries and the worker checks. */
export const MAX_PRINCIPAL = 1024;
// No control characters: a principal is logged and used in keys (hashed).
const PRINCIPAL = /^\P{Cc}+$/u;
export const PRINCIPAL_RULE = `1-${MAX_PRINCIPAL} characters, no control characters`;

export function isSafeId(value: unknown): value is string {
  return typeof value === 'string' && SAFE_ID.test(value);
}

export function isPrincipal(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length >= 1 &&
    value.length <= MAX_PRINCIPAL &&
    PRINCIPAL.test(value)
  );
}
