import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type IdempotencyClaim,
  IdempotencyClaimLost,
  type IdempotencyClaimOptions,
  IdempotencyKeyReused,
  type IdempotencyStore,
} from '../../app/ports/idempotency.js';
import { InvalidRecord, RecordCorrupt } from '../../core/stores.js';
import { jsonProblem, parseStoredJson, toStoredJson } from '../json.js';
import { DynamoBase, isConditionFailed } from './base.js';
import { decode, encode } from './codec.js';
import { keys } from './table.js';

export const DEFAULT_IN_PROGRESS_MS = 60_000;
const LIMIT = 380_000;

/**
 * Idempotency records as `IDEMPOTENCY#<key>/META`. A claim is one conditional put that wins when
 * the key is free, expired, or its in-progress claim lapsed; otherwise one read tells the caller
 * whether it is in progress or completed (with the stored result).
 */
export class DynamoIdempotencyStore extends DynamoBase implements IdempotencyStore {
  async claim(key: string, options: IdempotencyClaimOptions = {}): Promise<IdempotencyClaim> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.#put(key, options);
      if (token) return { outcome: 'claimed', token };
      const { Item } = await this.doc.send(
        new GetCommand({
          TableName: this.table,
          Key: { pk: keys.idempotency(key), sk: keys.meta },
          ConsistentRead: true,
        }),
      );
      // Released or expired between our two requests: claim again, once.
      if (!Item || this.expired(Item)) {
        if (attempt === 0) continue;
        return { outcome: 'in-progress' };
      }
      if (options.fingerprint !== undefined && Item.fingerprint !== options.fingerprint) {
        throw new IdempotencyKeyReused(key);
      }
      if (Item.status === 'in-progress') return { outcome: 'in-progress' };
      if (Item.status !== 'completed') {
        throw new RecordCorrupt('idempotency record', key, `unknown status ${String(Item.status)}`);
      }
      try {
        return { outcome: 'completed', result: parseStoredJson(decode(Item.enc, Item.result)) };
      } catch (err) {
        throw new RecordCorrupt('idempotency record', key, jsonProblem(err));
      }
    }
  }

  /** The conditional put of a claim; its token when it won. */
  async #put(key: string, options: IdempotencyClaimOptions): Promise<string | undefined> {
    const token = randomUUID();
    const now = this.now();
    const sameFingerprint = options.fingerprint === undefined ? '' : ' AND fingerprint = :fp';
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: keys.idempotency(key),
            sk: keys.meta,
            status: 'in-progress',
            token,
            fingerprint: options.fingerprint,
            inProgressUntil: now + (options.inProgressMs ?? DEFAULT_IN_PROGRESS_MS),
            expiresAt: this.expiry(options.ttlSeconds),
          },
          ConditionExpression:
            'attribute_not_exists(pk) OR expiresAt <= :nowSec OR ' +
            `(#status = :inProgress AND inProgressUntil <= :now${sameFingerprint})`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':nowSec': this.nowSeconds(),
            ':now': now,
            ':inProgress': 'in-progress',
            ...(options.fingerprint === undefined ? {} : { ':fp': options.fingerprint }),
          },
        }),
      );
      return token;
    } catch (err) {
      if (isConditionFailed(err)) return undefined;
      throw err;
    }
  }

  async complete(key: string, token: string, result: unknown): Promise<void> {
    let encoded: ReturnType<typeof encode>;
    try {
      encoded = encode(toStoredJson(result ?? null));
    } catch (err) {
      throw new InvalidRecord('idempotency result', jsonProblem(err));
    }
    if (encoded.size > LIMIT) {
      throw new InvalidRecord('idempotency result', `${encoded.size} bytes is over ${LIMIT}`);
    }
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keys.idempotency(key), sk: keys.meta },
          UpdateExpression: 'SET #status = :completed, enc = :enc, #result = :result',
          ConditionExpression: '#status = :inProgress AND #token = :token',
          ExpressionAttributeNames: { '#status': 'status', '#result': 'result', '#token': 'token' },
          ExpressionAttributeValues: {
            ':completed': 'completed',
            ':inProgress': 'in-progress',
            ':enc': encoded.enc,
            ':result': encoded.body,
            ':token': token,
          },
        }),
      );
    } catch (err) {
      if (isConditionFailed(err)) throw new IdempotencyClaimLost(key);
      throw err;
    }
  }

  async release(key: string, token: string): Promise<void> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { pk: keys.idempotency(key), sk: keys.meta },
          ConditionExpression: '#status = :inProgress AND #token = :token',
          ExpressionAttributeNames: { '#status': 'status', '#token': 'token' },
          ExpressionAttributeValues: { ':inProgress': 'in-progress', ':token': token },
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }
}
