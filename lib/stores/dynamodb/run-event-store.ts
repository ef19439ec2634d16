import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  checkRange,
  DEFAULT_EVENTS_TTL_SECONDS,
  lastSeqOf,
  type RunEventStore,
  SeqTaken,
  type StoredBatch,
  type StoredMessage,
  type StoredPage,
} from '../../app/ports/run-events.js';
import type { Binding } from '../../core/ownership.js';
import { RecordCorrupt } from '../../core/stores.js';
import { DynamoBase, type DynamoStoreOptions, isConditionFailed } from './base.js';
import { decode, encode } from './codec.js';
import { keys } from './table.js';

/** Compressed from this much JSON on: a range of events is repetitive text (runIds, types). */
const COMPRESS_EVENTS_ABOVE = 200;

/**
 * Stored events as `SESSION#<id>` / `EVENTS#<runId>#<first seq>`: one item per stored range of
 * messages (`first`…`last`), their seqs and events as brotli-compressed JSON, the writer's
 * `owner` / `incarnation`, `expiresAt` the events window (default 24 h), `at` when it was stored.
 * A write is conditional on the first seq (first writer wins); reads are strongly consistent
 * key-range Queries, so a reconnect sees every range stored before it.
 */
export class DynamoRunEventStore extends DynamoBase implements RunEventStore {
  readonly flushMs: number | undefined;

  constructor(options: DynamoStoreOptions & { flushMs?: number }) {
    super({ ttlSeconds: DEFAULT_EVENTS_TTL_SECONDS, ...options });
    this.flushMs = options.flushMs;
  }

  async append(
    range: { sessionId: string; runId: string; messages: readonly StoredMessage[] },
    binding: Binding,
  ): Promise<void> {
    const first = checkRange(range.messages);
    const last = lastSeqOf(range.messages[range.messages.length - 1] as StoredMessage);
    const json = JSON.stringify(range.messages.map(compact));
    const encoded = encode(json, COMPRESS_EVENTS_ABOVE);
    const key = { pk: keys.session(range.sessionId), sk: keys.events(range.runId, first) };
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...key,
            seq: first,
            last,
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
      // The same range again (a retried write that had landed) is fine; other content is not.
      const { Item } = await this.doc.send(
        new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }),
      );
      if (!Item || this.expired(Item)) throw err;
      if (Item.last !== last || decodeBody(Item, range.runId) !== json) {
        throw new SeqTaken(range.runId, first);
      }
    }
  }

  async read(
    sessionId: string,
    runId: string,
    options: { after: number; limit: number },
  ): Promise<StoredPage> {
    const from = Math.max(0, options.after + 1);
    // The range holding `after + 1` starts at or below it: the one item just before, if it
    // reaches that far, then the ranges that start above it.
    const [covering] = await this.#query(sessionId, {
      from: keys.eventsPrefix(runId),
      to: keys.events(runId, from),
      forward: false,
      limit: 1,
    });
    const { items, more: moreItems } = await this.#page(sessionId, runId, from + 1, options.limit);
    const batches = [...(covering ? [covering] : []), ...items]
      .flatMap((item) => this.#batches(item, runId))
      .filter((b) => lastSeqOf(b) > options.after);
    const more = batches.length > options.limit || moreItems;
    return { batches: batches.slice(0, options.limit), more };
  }

  async last(sessionId: string, runId: string): Promise<StoredBatch | undefined> {
    const [item] = await this.#query(sessionId, {
      from: keys.eventsPrefix(runId),
      to: `${keys.eventsPrefix(runId)}~`,
      forward: false,
      limit: 1,
    });
    return item ? this.#batches(item, runId).at(-1) : undefined;
  }

  async #page(sessionId: string, runId: string, fromSeq: number, limit: number) {
    const { Items = [], LastEvaluatedKey } = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': keys.session(sessionId),
          ':from': keys.events(runId, fromSeq),
          ':to': `${keys.eventsPrefix(runId)}~`,
        },
        ConsistentRead: true,
        Limit: limit + 1,
      }),
    );
    return { items: Items, more: Items.length > limit || !!LastEvaluatedKey };
  }

  async #query(
    sessionId: string,
    q: { from: string; to: string; forward: boolean; limit: number },
  ): Promise<Record<string, unknown>[]> {
    const { Items = [] } = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': keys.session(sessionId), ':from': q.from, ':to': q.to },
        ConsistentRead: true,
        ScanIndexForward: q.forward,
        Limit: q.limit,
      }),
    );
    return Items;
  }

  /** The range's messages, or none once expired (DynamoDB deletes late, dynalite never). */
  #batches(item: Record<string, unknown>, runId: string): StoredBatch[] {
    if (this.expired(item)) return [];
    if (typeof item.seq !== 'number') {
      throw new RecordCorrupt('events', String(item.sk), 'no seq');
    }
    let messages: Compact[];
    try {
      messages = JSON.parse(decodeBody(item, runId)) as Compact[];
      if (!Array.isArray(messages)) throw new Error('not a list of messages');
    } catch (err) {
      throw new RecordCorrupt('events', `${runId}#${item.seq}`, (err as Error).message);
    }
    return messages.map((m) => ({
      ...seqsOf(m),
      events: m.e,
      ...(typeof item.owner === 'string' ? { owner: item.owner } : {}),
      ...(typeof item.incarnation === 'string' ? { incarnation: item.incarnation } : {}),
      ...(typeof item.at === 'number' ? { at: item.at } : {}),
    }));
  }
}

/**
 * A message as stored: short names, the item's bytes are the bill. A marker's `f` is its first
 * seq; `t` (a marker's last seq, `s` its first) is how markers were written before they took
 * their last seq, read as the same range.
 */
interface Compact {
  s: number;
  f?: number;
  t?: number;
  e: StoredMessage['events'];
}

function compact(m: StoredMessage): Compact {
  return { s: m.seq, ...(m.from === undefined ? {} : { f: m.from }), e: m.events };
}

function seqsOf(m: Compact): { seq: number; from?: number } {
  if (m.t !== undefined) return m.t > m.s ? { seq: m.t, from: m.s } : { seq: m.s };
  return { seq: m.s, ...(m.f === undefined ? {} : { from: m.f }) };
}

function decodeBody(item: Record<string, unknown>, runId: string): string {
  try {
    return decode(item.enc, item.body);
  } catch (err) {
    throw new RecordCorrupt('events', `${runId}#${String(item.seq)}`, (err as Error).message);
  }
}
