import { createHash } from 'node:crypto';
import { type LedgerEntry, LedgerEntrySchema, type ToolLedger } from '../core/ledger.js';
import { canonicalJson } from '../core/model-step.js';

export { canonicalJson };

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

/** Equal arguments give equal hashes (keys sorted). */
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
