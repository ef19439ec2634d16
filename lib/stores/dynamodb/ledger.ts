import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { type LedgerEntry, LedgerEntrySchema, type ToolLedger } from '../../core/ledger.js';
import { InvalidRecord, RecordCorrupt } from '../../core/stores.js';
import { DynamoBase } from './base.js';
import { keys } from './table.js';

/**
 * The tool ledger as `SESSION#<id>/LEDGER#<runId>#<callId>`, one plain item per call (an audit
 * trail should be readable in the console). A repeated call id overwrites its entry.
 */
export class DynamoToolLedger extends DynamoBase implements ToolLedger {
  async record(entry: LedgerEntry): Promise<void> {
    const parsed = LedgerEntrySchema.safeParse(entry);
    if (!parsed.success) {
      throw new InvalidRecord('ledger entry', parsed.error.issues[0]?.message ?? 'invalid');
    }
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: keys.session(entry.sessionId),
          sk: keys.ledger(entry.runId, entry.callId),
          ...parsed.data,
          expiresAt: this.expiry(),
        },
      }),
    );
  }

  async list(sessionId: string, runId?: string): Promise<LedgerEntry[]> {
    const entries: LedgerEntry[] = [];
    for await (const item of this.queryPrefix(keys.session(sessionId), keys.ledgerPrefix(runId))) {
      if (this.expired(item)) continue;
      const { pk: _pk, sk, expiresAt: _ttl, ...rest } = item;
      const parsed = LedgerEntrySchema.safeParse(rest);
      if (!parsed.success) {
        throw new RecordCorrupt('ledger entry', String(sk), parsed.error.issues[0]?.message ?? '');
      }
      // A '#' inside a run id could widen the prefix match: keep exactly that run.
      if (runId === undefined || parsed.data.runId === runId) entries.push(parsed.data);
    }
    return entries.sort((a, b) => a.startedAt - b.startedAt);
  }
}
