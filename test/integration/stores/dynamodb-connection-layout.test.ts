import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys, PARTITIONS } from '../../../lib/stores/dynamodb/table.js';
import { DynamoConnectionStore } from '../../../lib/stores/index.js';
import { dynamoTargets, newTable } from './dynamo.js';

// IAM scopes the delivery functions to the CONN# and SUBS# partitions (infra/functions.ts):
// that only holds while no connection item lives under a session's partition.
for (const { name, endpoint } of dynamoTargets()) {
  describe(`DynamoDB connection item layout: ${name}`, () => {
    it('keeps subscriptions in SUBS#<session>, connections in CONN#<id>, nothing in SESSION#', async () => {
      // Prepare
      const { client, tableName } = await newTable(endpoint);
      const doc = DynamoDBDocumentClient.from(client);
      const partition = async (pk: string) =>
        (
          await doc.send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': pk },
            }),
          )
        ).Items ?? [];
      const store = new DynamoConnectionStore({ client, tableName });
      await store.connect({ connectionId: 'c1', endpoint: 'https://x/live', connectedAt: 1 });

      // Act
      await store.subscribe('c1', 's1', 'ag-ui');

      // Assess
      expect(keys.subscriptions('s1')).toBe(`${PARTITIONS.subscriptions}s1`);
      expect((await partition('SUBS#s1')).map((item) => item.sk)).toEqual(['SUB#c1']);
      expect((await partition('CONN#c1')).map((item) => item.sk)).toEqual(['META']);
      expect(await partition('SESSION#s1')).toEqual([]);
      await store.disconnect('c1');
      expect(await partition('SUBS#s1')).toEqual([]);
      expect(await partition('CONN#c1')).toEqual([]);
    });
  });
}
