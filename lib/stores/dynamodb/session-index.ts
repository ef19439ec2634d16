import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type {
  SessionIndex,
  SessionIndexEntry,
  SessionIndexPosition,
} from '../../app/ports/session-index.js';
import { DynamoBase, type DynamoStoreOptions } from './base.js';
import { keys } from './table.js';

/**
 * The owner index: one small item per session a principal created, in the partition
 * `SESSION#!owner#<principal>` (the sessions family: the grants that claim a session cover it),
 * sorted by creation so a page is one Query read backwards. No GSI: access stays by partition.
 * An entry outlives its session by at most a few TTLs and is filtered on read.
 */
export class DynamoSessionIndex extends DynamoBase implements SessionIndex {
  constructor(options: DynamoStoreOptions) {
    super(options);
  }

  async add(owner: string, entry: SessionIndexEntry): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: keys.ownerIndex(owner),
          sk: keys.ownerEntry(entry.createdAt, entry.sessionId),
          sessionId: entry.sessionId,
          createdAt: entry.createdAt,
          incarnation: entry.incarnation,
          // A session lives on while it is used: the entry lasts several of its idle TTLs.
          expiresAt: this.expiry(this.ttlSeconds * 4),
        },
      }),
    );
  }

  async page(owner: string, options: { limit: number; after?: SessionIndexPosition }) {
    const { after } = options;
    const pk = keys.ownerIndex(owner);
    const { Items, LastEvaluatedKey } = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': keys.ownerEntryPrefix },
        ScanIndexForward: false,
        Limit: options.limit,
        ...(after
          ? { ExclusiveStartKey: { pk, sk: keys.ownerEntry(after.createdAt, after.sessionId) } }
          : {}),
      }),
    );
    const entries: SessionIndexEntry[] = [];
    for (const item of Items ?? []) {
      if (this.expired(item)) continue;
      if (typeof item.sessionId !== 'string' || typeof item.createdAt !== 'number') continue;
      const incarnation = typeof item.incarnation === 'string' ? item.incarnation : undefined;
      entries.push({ sessionId: item.sessionId, createdAt: item.createdAt, incarnation });
    }
    return { entries, more: LastEvaluatedKey !== undefined };
  }
}
