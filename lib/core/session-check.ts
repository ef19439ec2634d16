import { SESSION_SCHEMA_VERSION, type SessionData, SessionDataSchema } from './session.js';

const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const KEYS = new Set([
  'schemaVersion',
  'id',
  'owner',
  'incarnation',
  'agent',
  'state',
  'context',
  'turns',
  'paused',
  'lastReply',
  'createdAt',
  'updatedAt',
]);

export type SessionCheck =
  | { readonly success: true; readonly data: SessionData }
  | { readonly success: false; readonly message: string };

/**
 * A loaded session checked exactly as `SessionDataSchema` would (strict keys, same types), by
 * hand: the schema's walk ran on every turn's load. Anything the hand check does not accept goes
 * through the schema, which words the error (or accepts what the hand check is too strict for).
 */
export function checkSessionData(value: unknown): SessionCheck {
  if (isSessionData(value)) return { success: true, data: value };
  const parsed = SessionDataSchema.safeParse(value);
  if (parsed.success) return { success: true, data: parsed.data };
  return { success: false, message: parsed.error.issues[0]?.message ?? 'invalid session' };
}

function isSessionData(value: unknown): value is SessionData {
  if (!isRecord(value)) return false;
  for (const key in value) if (!KEYS.has(key)) return false;
  const v = value as Record<string, unknown>;
  return (
    v.schemaVersion === SESSION_SCHEMA_VERSION &&
    typeof v.id === 'string' &&
    SESSION_ID.test(v.id) &&
    optionalString(v.owner) &&
    (v.incarnation === undefined ||
      (typeof v.incarnation === 'string' &&
        v.incarnation.length >= 1 &&
        v.incarnation.length <= 64)) &&
    optionalString(v.agent) &&
    isJsonRecord(v.state) &&
    isJsonRecord(v.context) &&
    Number.isSafeInteger(v.turns) &&
    (v.turns as number) >= 0 &&
    (v.paused === undefined || isPausedList(v.paused)) &&
    (v.lastReply === undefined || isLastReply(v.lastReply)) &&
    Number.isSafeInteger(v.createdAt) &&
    Number.isSafeInteger(v.updatedAt)
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

/** A record of stored JSON values (`StoredJsonRecord`: any value but undefined). */
function isJsonRecord(value: unknown): boolean {
  if (!isRecord(value)) return false;
  // A `__proto__` key (the stores refuse it anyway) is left to the schema's own handling.
  for (const key in value) if (value[key] === undefined || key === '__proto__') return false;
  return true;
}

function isPausedList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) {
    if (!isRecord(item) || typeof item.runId !== 'string' || !Number.isSafeInteger(item.expiresAt))
      return false;
    for (const key in item) if (key !== 'runId' && key !== 'expiresAt') return false;
  }
  return true;
}

function isLastReply(value: unknown): boolean {
  if (!isRecord(value) || typeof value.runId !== 'string' || typeof value.text !== 'string')
    return false;
  for (const key in value) if (key !== 'runId' && key !== 'text' && key !== 'output') return false;
  return true;
}
