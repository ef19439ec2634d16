import { createHash } from 'node:crypto';
import { type LedgerEntry, LedgerEntrySchema, type ToolLedger } from '../core/ledger.js';

/** Keeps ledger entries in memory (tests, local runs); DynamoDB lives in lib/stores. */
export class InMemoryToolLedger implements ToolLedger {
  readonly #entries: LedgerEntry[] = [];

  async record(entry: LedgerEntry): Promise<void> {
    // Checked here too, so tests catch an entry the DynamoDB ledger would refuse.
    this.#entries.push(LedgerEntrySchema.parse(entry));
  }

  async list(sessionId: string, runId?: string): Promise<LedgerEntry[]> {
    return this.#entries
      .filter((e) => e.sessionId === sessionId && (runId === undefined || e.runId === runId))
      .map((e) => ({ ...e }));
  }

  /** Every entry, oldest first (tests). */
  get entries(): readonly LedgerEntry[] {
    return [...this.#entries];
  }
}

/** JSON with object keys sorted, so equal arguments give equal hashes and cache keys. */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
      return sorted;
    }) ?? 'undefined'
  );
}

export function hashArgs(args: unknown): string {
  let text: string;
  try {
    text = canonicalJson(args);
  } catch {
    // Not JSON (cycles, bigint): hash its shape rather than fail the audit record.
    text = String(args);
  }
  return createHash('sha256').update(text).digest('hex');
}
