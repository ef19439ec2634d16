import {
  findForbiddenKey,
  PAUSED_RUN_SCHEMA_VERSION,
  type PausedRun,
  PausedRunSchema,
} from './paused-run.js';
import { RecordCorrupt } from './stores.js';

/**
 * Forward migrations of stored paused runs: `MIGRATIONS[n]` turns a version-n document into
 * version n+1. Version 1 is the first released format, so the chain is empty today; a change of
 * the schema adds one step here and golden fixtures of the old version under test/fixtures.
 */
const MIGRATIONS: Record<number, (doc: Record<string, unknown>) => Record<string, unknown>> = {};

/** Checks, migrates and validates a stored paused run; anything else is `RecordCorrupt`. */
export function parsePausedRun(raw: unknown, key = '(unknown)'): PausedRun {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new RecordCorrupt('paused run', key, 'not a JSON object');
  }
  const forbidden = findForbiddenKey(raw);
  if (forbidden !== undefined) {
    throw new RecordCorrupt('paused run', key, `forbidden key at "${forbidden}"`);
  }
  let doc = raw as Record<string, unknown>;
  const version = doc.schemaVersion;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new RecordCorrupt('paused run', key, 'missing or invalid schemaVersion');
  }
  if (version > PAUSED_RUN_SCHEMA_VERSION) {
    throw new RecordCorrupt(
      'paused run',
      key,
      `schemaVersion ${version} is newer than this runtime understands (${PAUSED_RUN_SCHEMA_VERSION})`,
    );
  }
  for (let v = version; v < PAUSED_RUN_SCHEMA_VERSION; v++) {
    const step = MIGRATIONS[v];
    if (!step) throw new RecordCorrupt('paused run', key, `no migration from version ${v}`);
    doc = { ...step(doc), schemaVersion: v + 1 };
  }
  const parsed = PausedRunSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RecordCorrupt(
      'paused run',
      key,
      `${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
    );
  }
  return parsed.data;
}
