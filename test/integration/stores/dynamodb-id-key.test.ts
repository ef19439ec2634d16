import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys } from '../../../lib/stores/dynamodb/table.js';
import { DynamoIdKeyStore } from '../../../lib/stores/index.js';
import { dynamoTargets, newTable } from './dynamo.js';

// The deployment's id key (lib/app/ids.ts): one per table, whoever mints it first.
for (const { name, endpoint } of dynamoTargets()) {
  describe(`DynamoIdKeyStore: ${name}`, () => {
    it('of many functions starting at once, all read the one key the first minted', async () => {
      // Prepare
      const table = await newTable(endpoint);
      const stores = Array.from({ length: 12 }, () => new DynamoIdKeyStore(table));

      // Act
      const read = await Promise.all(stores.map((store) => store.key()));
      const later = await new DynamoIdKeyStore(table).key();

      // Assess
      const distinct = new Set(read.map((key) => Buffer.from(key).toString('hex')));
      expect(distinct.size).toBe(1);
      expect(Buffer.from(later)).toEqual(Buffer.from(read[0] as Uint8Array));
      expect(later).toHaveLength(32);
    });

    it('gives each table (deployment) a key of its own, kept with no expiry, in the sessions family', async () => {
      // Prepare
      const [one, two] = [await newTable(endpoint), await newTable(endpoint)];

      // Act
      const [a, b] = [await new DynamoIdKeyStore(one).key(), await new DynamoIdKeyStore(two).key()];
      const store = new DynamoIdKeyStore(one);
      const { Item } = await store.doc.send(
        new GetCommand({ TableName: one.tableName, Key: keys.idKey }),
      );

      // Assess
      expect(Buffer.from(a)).not.toEqual(Buffer.from(b));
      expect(Item?.expiresAt).toBeUndefined();
      expect(keys.idKey.pk.startsWith('SESSION#')).toBe(true);
      // No session id can name it: `!` is outside the id alphabet.
      expect(keys.idKey.pk.slice('SESSION#'.length)).not.toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    });

    it('refuses a corrupt key instead of making ids with it', async () => {
      // Prepare
      const table = await newTable(endpoint);
      const store = new DynamoIdKeyStore(table);
      await store.doc.send(
        new PutCommand({ TableName: table.tableName, Item: { ...keys.idKey, key: 'c2hvcnQ=' } }),
      );

      // Act + Assess
      await expect(store.key()).rejects.toMatchObject({ code: 'record-corrupt' });
    });
  });
}
