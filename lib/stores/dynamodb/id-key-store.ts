import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { RecordCorrupt } from '../../core/stores.js';
import { DynamoBase, isConditionFailed } from './base.js';
import { keys } from './table.js';

/**
 * The deployment's id key (lib/app/ids.ts): 32 random bytes in one item of the table, minted by
 * the first function that needs it (a create-only put, so every function of the deployment reads
 * the same key), read once per cold start. It never expires: ids made with it must stay the same
 * for as long as a retry may come. Whoever can read the table can read it, as they could read the
 * sessions it guards; API clients never can, so they cannot compute another's ids.
 */
export class DynamoIdKeyStore extends DynamoBase {
  async key(): Promise<Uint8Array> {
    const stored = await this.#read();
    if (stored) return stored;
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...keys.idKey, key: randomBytes(32).toString('base64') },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (err) {
      // Another function minted it first: theirs is the deployment's.
      if (!isConditionFailed(err)) throw err;
    }
    const minted = await this.#read();
    if (!minted) throw new RecordCorrupt('id key', keys.idKey.pk, 'it vanished after its put');
    return minted;
  }

  async #read(): Promise<Uint8Array | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: keys.idKey, ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const key = typeof Item.key === 'string' ? Buffer.from(Item.key, 'base64') : undefined;
    if (key?.length !== 32) {
      throw new RecordCorrupt('id key', keys.idKey.pk, 'it is not 32 base64 bytes');
    }
    return key;
  }
}
