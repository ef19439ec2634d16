import { InvalidRequest } from '../core/errors.js';
import { isSafeId, SAFE_ID_RULE } from '../transport/ids.js';

/** An id that breaks the rules: `invalid-request` (400), never echoing the (maybe huge) value. */
export class InvalidId extends InvalidRequest {
  constructor(field: string, rule: string) {
    super(`${field} must be ${rule}.`);
  }
}

/** Checks an id from a path, header or payload before any store sees it. */
export function checkId(field: string, value: unknown): string {
  if (!isSafeId(value)) throw new InvalidId(field, SAFE_ID_RULE);
  return value;
}
