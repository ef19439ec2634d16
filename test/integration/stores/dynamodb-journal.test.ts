import { randomBytes } from 'node:crypto';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { InvalidRecord, RecordCorrupt } from '../../../lib/core/index.js';
import { DynamoRunJournalStore, keys } from '../../../lib/stores/index.js';
import { dynamoTargets, newTable } from './dynamo.js';

const future = Math.floor(Date.now() / 1000) + 3600;

for (const { name, endpoint } of dynamoTargets()) {
  describe(`DynamoRunJournalStore: ${name}`, () => {
    async function setup() {
      const { client, tableName } = await newTable(endpoint);
      const store = new DynamoRunJournalStore({ client, tableName });
      const put = (sk: string, item: Record<string, unknown>) =>
        DynamoDBDocumentClient.from(client).send(
          new PutCommand({
            TableName: tableName,
            Item: { pk: keys.session('s1'), sk, runId: 'r1', expiresAt: future, ...item },
          }),
        );
      return { store, put };
    }

    it('refuses tampered entries with record-corrupt, naming the item', async () => {
      // Prepare
      const cases: [Record<string, unknown>, RegExp][] = [
        [
          { kind: 'tool', callId: 'c1', tool: 't', status: 'done', enc: 'json', body: '{' },
          /invalid JSON/,
        ],
        [{ kind: 'tool', callId: 'c1', tool: 't', status: 'weird' }, /unknown status weird/],
        [{ kind: 'alien' }, /unknown kind alien/],
        [{ kind: 'model', key: 'k', enc: 'json', body: '{"__proto__":{"x":1}}' }, /__proto__/],
      ];

      for (const [item, detail] of cases) {
        const { store, put } = await setup();
        await put(keys.journalCall('r1', 'c1'), item);

        // Act
        const err = await store.load('s1', 'r1').catch((e: unknown) => e);

        // Assess
        expect(err).toBeInstanceOf(RecordCorrupt);
        expect((err as Error).message).toMatch(detail);
        expect((err as Error).message).toContain('JOURNAL#r1#T#c1');
      }
    });

    it('refuses a model response over the item limit and changes nothing', async () => {
      // Prepare
      const { store } = await setup();
      const huge = { text: randomBytes(600_000).toString('base64') };

      // Act
      const err = await store.putModel('s1', 'r1', 'k', huge).catch((e: unknown) => e);

      // Assess
      expect(err).toBeInstanceOf(InvalidRecord);
      expect(await store.load('s1', 'r1')).toEqual([]);
    });
  });
}
