import { AgentKernelError } from '../core/errors.js';
import { isSafeId } from '../transport/ids.js';

/** A paging cursor or limit this route did not give out: nothing is read. */
export class InvalidCursor extends AgentKernelError {
  constructor(detail: string) {
    super('invalid-cursor', detail);
  }
}

export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;

/** `limit` from a query string: absent → the default; otherwise an integer 1-100. */
export function pageLimit(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PAGE;
  const n = /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) {
    throw new InvalidCursor(`limit must be an integer from 1 to ${MAX_PAGE}.`);
  }
  return n;
}

/** Where a page starts: just past this item (a session of the index, a run of a session). */
export interface Position {
  createdAt: number;
  id: string;
}

/**
 * Cursors are opaque to clients: base64url of `[createdAt, id]`. Checked strictly, and
 * only ever read inside the caller's own index partition, so a forged one reaches nothing more.
 */
export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

export function decodeCursor(value: string | undefined): Position | undefined {
  if (value === undefined || value === '') return undefined;
  const bad = () => new InvalidCursor('The cursor is not one this route gave out.');
  if (value.length > 400 || !/^[A-Za-z0-9_-]+$/.test(value)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw bad();
  const [createdAt, id] = parsed as unknown[];
  if (!Number.isSafeInteger(createdAt) || (createdAt as number) < 0) throw bad();
  if (!isSafeId(id)) throw bad();
  return { createdAt: createdAt as number, id: id as string };
}
