import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  DEFAULT_EVENTS_TTL_SECONDS,
  type RunEventStore,
  SeqTaken,
  type StoredBatch,
  type StoredPage,
} from '../../app/ports/run-events.js';
import type { StreamEvent } from '../../core/events.js';
import type { Binding } from '../../core/ownership.js';
import { RecordCorrupt } from '../../core/stores.js';
import { DynamoBase, type DynamoStoreOptions, isConditionFailed } from './base.js';
import { decode, encode } from './codec.js';
import { keys } from './table.js';

/**
 * Stored events as `SESSION#<id>` / `EVENTS#<runId>#<seq>`: one item per delivered message, its
 * events as (compressed) JSON, the writer's `owner` / `incarnation`, `expiresAt` the events
 * window (default 24 h), `at` when it was stored. A write is conditional (first writer wins); reads are strongly
 * consistent key-range Queries, so a reconnect sees every message sent before it.
 */
export class DynamoRunEventStore extends DynamoBase implements RunEventStore {
  constructor(options: DynamoStoreOptions) {
    super({ ttlSeconds: DEFAULT_EVENTS_TTL_SECONDS, ...options });
  }

  async append(
    message: { sessionId: string; runId: string; seq: number; events: readonly StreamEvent[] },
    binding: Binding,
  ): Promise<void> {
    const json = JSON.stringify(message.events);
    const encoded = encode(json);
    const key = {
      pk: keys.session(message.sessionId),
      sk: keys.events(message.runId, message.seq),
    };
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...key,
            seq: message.seq,
            ...(binding.owner === undefined ? {} : { owner: binding.owner }),
            ...(binding.incarnation === undefined ? {} : { incarnation: binding.incarnation }),
            enc: encoded.enc,
            body: encoded.body,
            at: this.now(),
            expiresAt: this.expiry(),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
          ExpressionAttributeValues: { ':now': this.nowSeconds() },
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      // The same message again (a retried write that had landed) is fine; other content is not.
      const { Item } = await this.doc.send(
        new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }),
      );
      if (!Item || this.#batch(Item, message.runId) === undefined) throw err;
      if (JSON.stringify(this.#batch(Item, message.runId)?.events) !== json) {
        throw new SeqTaken(message.runId, message.seq);
      }
    }
  }

  async read(
    sessionId: string,
    runId: string,
    options: { after: number; limit: number },
  ): Promise<StoredPage> {
    const from = keys.events(runId, Math.max(0, options.after + 1));
    const { Items = [], LastEvaluatedKey } = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': keys.session(sessionId),
          ':from': from,
          ':to': `${keys.eventsPrefix(runId)}~`,
        },
        ConsistentRead: true,
        Limit: options.limit + 1,
      }),
    );
    const batches = Items.flatMap((item) => {
      const batch = this.#batch(item, runId);
      return batch ? [batch] : [];
    });
    const more =
      batches.length > options.limit || (Items.length <= options.limit && !!LastEvaluatedKey);
    return { batches: batches.slice(0, options.limit), more };
  }

  async last(sessionId: string, runId: string): Promise<StoredBatch | undefined> {
    const { Items = [] } = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': keys.session(sessionId),
          ':prefix': keys.eventsPrefix(runId),
        },
        ConsistentRead: true,
        ScanIndexForward: false,
        Limit: 1,
      }),
    );
    const item = Items[0];
    return item ? this.#batch(item, runId) : undefined;
  }

  /** The stored message, or undefined once expired (DynamoDB deletes late, dynalite never). */
  #batch(item: Record<string, unknown>, runId: string): StoredBatch | undefined {
    if (this.expired(item)) return undefined;
    const seq = item.seq;
    if (typeof seq !== 'number') throw new RecordCorrupt('events', String(item.sk), 'no seq');
    let events: StreamEvent[];
    try {
      events = JSON.parse(decode(item.enc, item.body)) as StreamEvent[];
    } catch (err) {
      throw new RecordCorrupt('events', `${runId}#${seq}`, (err as Error).message);
    }
    return {
      seq,
      events,
      ...(typeof item.owner === 'string' ? { owner: item.owner } : {}),
      ...(typeof item.incarnation === 'string' ? { incarnation: item.incarnation } : {}),
      ...(typeof item.at === 'number' ? { at: item.at } : {}),
    };
  }
}
