import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  movesInto,
  type RunRecord,
  RunRecordSchema,
  type RunRecordStore,
  type RunTransition,
  type TransitionOptions,
} from '../../app/ports/run-records.js';
import { InvalidRecord, RecordCorrupt } from '../../core/stores.js';
import { jsonProblem, parseStoredJson, toStoredJson } from '../json.js';
import { DynamoBase, isConditionFailed } from './base.js';
import { decode, encode } from './codec.js';
import { keys } from './table.js';

/** Item size left for a reply after keys and attributes. */
const LIMIT = 380_000;

/** Run records as `SESSION#<id>/RUN#<runId>`: status plain, the record as (compressed) JSON. */
export class DynamoRunRecordStore extends DynamoBase implements RunRecordStore {
  async put(record: RunRecord): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: this.#item(record) }));
  }

  async transition(record: RunRecord, options?: TransitionOptions): Promise<RunTransition> {
    const item = this.#item(record);
    const from = movesInto(record.status, options);
    const names = from.map((_, i) => `:from${i}`);
    const statusIn = from.length === 0 ? '' : ` OR #status IN (${names.join(', ')})`;
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          // An expired record (dynalite never deletes one) counts as absent, as get reads it.
          ConditionExpression: `attribute_not_exists(pk) OR expiresAt <= :now${statusIn}`,
          ...(from.length === 0 ? {} : { ExpressionAttributeNames: { '#status': 'status' } }),
          ExpressionAttributeValues: {
            ':now': this.nowSeconds(),
            ...Object.fromEntries(from.map((status, i) => [`:from${i}`, status])),
          },
        }),
      );
      return { applied: true };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      return { applied: false, current: await this.get(record.sessionId, record.runId) };
    }
  }

  #item(record: RunRecord): Record<string, unknown> {
    const parsed = RunRecordSchema.safeParse(record);
    if (!parsed.success) {
      throw new InvalidRecord('run record', parsed.error.issues[0]?.message ?? 'invalid');
    }
    let json: string;
    try {
      json = toStoredJson(parsed.data);
    } catch (err) {
      throw new InvalidRecord('run record', jsonProblem(err));
    }
    const encoded = encode(json);
    if (encoded.size > LIMIT) {
      throw new InvalidRecord('run record', `${encoded.size} bytes compressed is over ${LIMIT}`);
    }
    return {
      pk: keys.session(record.sessionId),
      sk: keys.run(record.runId),
      status: record.status,
      updatedAt: record.updatedAt,
      enc: encoded.enc,
      body: encoded.body,
      expiresAt: this.expiry(),
    };
  }

  /** The session's run records (one Query of its `RUN#` items), at most `max`. */
  async listSession(sessionId: string, max: number) {
    const records: RunRecord[] = [];
    for await (const item of this.queryPrefix(keys.session(sessionId), 'RUN#')) {
      if (this.expired(item)) continue;
      if (records.length === max) return { records, truncated: true };
      records.push(runRecordOf(item, sessionId, String(item.sk).slice('RUN#'.length)));
    }
    return { records, truncated: false };
  }

  async get(sessionId: string, runId: string): Promise<RunRecord | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk: keys.session(sessionId), sk: keys.run(runId) },
        ConsistentRead: true,
      }),
    );
    if (!Item || this.expired(Item)) return undefined;
    return runRecordOf(Item, sessionId, runId);
  }
}

/** A stored run record item, decoded and checked (get, and the session's turns list). */
export function runRecordOf(
  Item: Record<string, unknown>,
  sessionId: string,
  runId: string,
): RunRecord {
  let value: unknown;
  try {
    value = parseStoredJson(decode(Item.enc, Item.body));
  } catch (err) {
    throw new RecordCorrupt('run record', runId, jsonProblem(err));
  }
  const parsed = RunRecordSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RecordCorrupt('run record', runId, `${issue?.path.join('.')}: ${issue?.message}`);
  }
  if (parsed.data.sessionId !== sessionId || parsed.data.runId !== runId) {
    throw new RecordCorrupt('run record', runId, 'it belongs to another session or run');
  }
  return parsed.data;
}
