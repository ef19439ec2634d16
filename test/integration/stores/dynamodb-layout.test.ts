import { randomBytes } from 'node:crypto';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { newSession, type SessionData } from '../../../lib/core/index.js';
import { DynamoSessionStore, keys } from '../../../lib/stores/index.js';
import { dynamoTargets, newTable } from './dynamo.js';

function sized(bytes: number): SessionData {
  const blob = randomBytes(Math.ceil((bytes * 3) / 4))
    .toString('base64')
    .slice(0, bytes);
  return { ...newSession('s1', 1), state: { test: { blob } } };
}

for (const { name, endpoint } of dynamoTargets()) {
  describe(`DynamoDB session item layout: ${name}`, () => {
    const setup = async () => {
      const { client, tableName } = await newTable(endpoint);
      const doc = DynamoDBDocumentClient.from(client);
      const items = async () => {
        const { Items = [] } = await doc.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.session('s1') },
          }),
        );
        return Items;
      };
      return { store: new DynamoSessionStore({ client, tableName }), items };
    };

    it('keeps a small session in one head item, plain JSON below 2 KB', async () => {
      // Prepare
      const { store, items } = await setup();

      // Act
      await store.save(newSession('s1', 1), 0);

      // Assess
      const stored = await items();
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ sk: 'META', version: 1, enc: 'json' });
      expect(JSON.parse(stored[0]!.body as string)).toMatchObject({ schemaVersion: 1, id: 's1' });
      expect(stored[0]!.expiresAt).toBeGreaterThan(Date.now() / 1000 + 6 * 24 * 3600);
    });

    it('chunks a large session, every item with expiresAt, and drops replaced chunks', async () => {
      // Prepare
      const { store, items } = await setup();

      // Act
      const v1 = await store.save(sized(900_000), 0);
      const first = await items();
      await store.load('s1');
      const v2 = await store.save(sized(800_000), v1);
      const second = await items();
      await store.load('s1');
      await store.save(sized(1_000), v2);
      const third = await items();

      // Assess
      const head = (all: Record<string, unknown>[]) => all.find((i) => i.sk === 'META')!;
      const chunks = (h: Record<string, unknown>) =>
        Array.from({ length: Number(h.chunks) }, (_, n) => `STATE#${h.gen}#000${n}`);
      expect(head(first)).toMatchObject({
        enc: 'br',
        chunks: 2,
        gen: expect.stringMatching(/^1\./),
      });
      expect(first.map((i) => i.sk).sort()).toEqual(['META', ...chunks(head(first))].sort());
      expect(head(second)).toMatchObject({ chunks: 2, gen: expect.stringMatching(/^2\./) });
      expect(second.map((i) => i.sk).sort()).toEqual(['META', ...chunks(head(second))].sort());
      expect(third.map((i) => i.sk)).toEqual(['META']);
      for (const item of [...first, ...second]) expect(item.expiresAt).toEqual(expect.any(Number));
    });
  });
}
