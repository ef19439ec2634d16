import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { PendingApprovalEntry, PendingApprovalPosition } from '../../app/ports/approvals.js';
import type { DynamoBase } from './base.js';
import { keys } from './table.js';

/**
 * The pending-approval index of the paused-run store: for each paused run one small item in
 * `SESSION#!approvals` (every pending run, an approver's inbox) and one in
 * `SESSION#!approvals#<owner>` (the owner's own), sorted by creation so a page is one Query.
 * No GSI: access stays by partition. Items carry the run's own `expiresAt`, so they leave with it.
 */
export interface IndexedRun {
  sessionId: string;
  runId: string;
  createdAt: number;
  owner?: string | undefined;
}

function indexKeys(run: IndexedRun): { pk: string; sk: string }[] {
  const sk = keys.approvalEntry(run.createdAt, run.sessionId, run.runId);
  const all = [{ pk: keys.approvals(), sk }];
  if (run.owner !== undefined) all.push({ pk: keys.approvals(run.owner), sk });
  return all;
}

/** Written before the run it names: a paused run is never missing from the index. */
export async function addToIndex(
  base: DynamoBase,
  run: IndexedRun,
  expiresAt: number,
): Promise<void> {
  const { sessionId, runId, createdAt, owner } = run;
  await Promise.all(
    indexKeys(run).map((key) =>
      base.doc.send(
        new PutCommand({
          TableName: base.table,
          Item: { ...key, sessionId, runId, createdAt, owner, expiresAt },
        }),
      ),
    ),
  );
}

/** Removed after the run: best effort (a leftover is skipped on read and expires with the run). */
export function removeFromIndex(base: DynamoBase, run: IndexedRun): Promise<void> {
  return base.deleteQuietly(indexKeys(run));
}

/** The run as its stored item names it (`owner` is a plain attribute next to the record). */
export function indexedOf(item: Record<string, unknown> | undefined): IndexedRun | undefined {
  if (!item || typeof item.sessionId !== 'string' || typeof item.runId !== 'string') return;
  if (typeof item.createdAt !== 'number') return;
  const owner = typeof item.owner === 'string' ? item.owner : undefined;
  return { sessionId: item.sessionId, runId: item.runId, createdAt: item.createdAt, owner };
}

export async function pagePending(
  base: DynamoBase,
  options: { owner?: string; limit: number; after?: PendingApprovalPosition },
): Promise<{ entries: PendingApprovalEntry[]; more: boolean }> {
  const { after } = options;
  const pk = keys.approvals(options.owner);
  const { Items, LastEvaluatedKey } = await base.doc.send(
    new QueryCommand({
      TableName: base.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': keys.approvalEntryPrefix },
      Limit: options.limit,
      ...(after
        ? {
            ExclusiveStartKey: {
              pk,
              sk: keys.approvalEntry(after.createdAt, after.sessionId, after.runId),
            },
          }
        : {}),
    }),
  );
  const entries: PendingApprovalEntry[] = [];
  for (const item of Items ?? []) {
    const run = base.expired(item) ? undefined : indexedOf(item);
    if (!run) continue;
    const { owner, ...rest } = run;
    entries.push({ ...rest, ...(owner !== undefined ? { owner } : {}) });
  }
  return { entries, more: LastEvaluatedKey !== undefined };
}
