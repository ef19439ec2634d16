import {
  type HandIssue,
  invalidType,
  numberIssues,
  stringIssues,
  unrecognizedKeys,
} from '../core/schema-words.js';
import type { ModelPrice } from './model-prices.js';

/**
 * `MODEL_PRICES` checked by hand, as ModelPricesSchema checks it (same value, same issues in the
 * same order: test/unit/app/model-prices-check.test.ts), for the functions that bundle no zod.
 */
export function checkModelPrices(
  text: string,
): { value: Record<string, ModelPrice> } | { issues: HandIssue[] } {
  let table: unknown;
  try {
    table = JSON.parse(text);
  } catch {
    return { issues: [{ path: [], message: 'must be JSON' }] };
  }
  if (typeof table !== 'object' || table === null || Array.isArray(table)) {
    return { issues: [{ path: [], message: invalidType('record', table) }] };
  }
  const rows = table as Record<string, unknown>;
  const value: Record<string, ModelPrice> = {};
  const issues: HandIssue[] = [];
  for (const key of Object.keys(rows)) {
    // As z.record: a JSON `__proto__` key is dropped, never assigned.
    if (key === '__proto__') continue;
    if (key.length < 1 || key.length > 256) {
      issues.push({ path: [key], message: 'Invalid key in record' });
      continue;
    }
    const row = checkRow(rows[key]);
    for (const issue of row.issues) issues.push({ ...issue, path: [key, ...issue.path] });
    value[key] = row.value;
  }
  return issues.length > 0 ? { issues } : { value };
}

const FIELDS: ReadonlySet<string> = new Set(['model', 'inputPerMillion', 'outputPerMillion']);
const PRICE = { min: 0, max: 10_000 } as const;

function checkRow(row: unknown): { value: ModelPrice; issues: HandIssue[] } {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) {
    return {
      value: row as ModelPrice,
      issues: [{ path: [], message: invalidType('object', row) }],
    };
  }
  const { model, inputPerMillion, outputPerMillion } = row as Record<string, unknown>;
  const at = (field: string, found: HandIssue[]) =>
    found.map((issue) => ({ ...issue, path: [field, ...issue.path] }));
  const issues = [
    ...at('model', stringIssues(model, 1, 100)),
    ...at('inputPerMillion', numberIssues(inputPerMillion, PRICE)),
    ...at('outputPerMillion', numberIssues(outputPerMillion, PRICE)),
  ];
  const extra = Object.keys(row).filter((key) => !FIELDS.has(key));
  if (extra.length > 0) issues.push({ path: [], message: unrecognizedKeys(extra) });
  return { value: { model, inputPerMillion, outputPerMillion } as ModelPrice, issues };
}
