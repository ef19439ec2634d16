import { brotliCompressSync } from 'node:zlib';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type JsonValue, newSession, type SessionData } from '../../../lib/core/index.js';
import { DynamoSessionStore, keys } from '../../../lib/stores/index.js';
import { dynamoTargets, newTable } from './dynamo.js';

const message = (n: number): JsonValue => ({ role: n % 2 ? 'assistant' : 'user', text: `m${n}` });
const history = (n: number) => Array.from({ length: n }, (_, i) => message(i));
const PATH = '["openai","history"]';
function chat(data: SessionData, items: JsonValue[]): SessionData {
  return { ...data, turns: items.length, state: { openai: { schemaVersion: 1, history: items } } };
}

/**
 * A session as the first turn-item layout stored it (the build before the short attribute
 * names): a head with `log`, two turn items with `data`, `enc`, `parts`, `prev`, `owner` and
 * `incarnation`, the second one brotli.
 */
function firstLayout(life: SessionData, expiresAt: number) {
  const pk = keys.session('s1');
  const skeleton = { ...chat(life, []), turns: 8 };
  const gen = '1.ab12cd34';
  const turn = (id: string, prev: string, content: JsonValue[], br: boolean) => {
    const json = JSON.stringify({ [PATH]: content });
    return {
      pk,
      sk: `TURN#${gen}#${id}#0000`,
      data: br ? brotliCompressSync(Buffer.from(json)) : json,
      enc: br ? 'br' : 'json',
      parts: 1,
      prev,
      owner: life.owner,
      incarnation: life.incarnation,
      expiresAt: expiresAt + 3600,
    };
  };
  return [
    {
      pk,
      sk: 'META',
      version: 2,
      enc: 'json',
      size: 200,
      log: {
        gen,
        last: '0000000002.eeff0011',
        segs: 2,
        exp: expiresAt + 7200,
        paths: { [PATH]: 8 },
      },
      owner: life.owner,
      turns: 8,
      updatedAt: 1,
      expiresAt,
      body: JSON.stringify(skeleton),
    },
    turn('0000000001.aabbccdd', '', history(4), false),
    turn('0000000002.eeff0011', '0000000001.aabbccdd', history(8).slice(4), true),
  ];
}

for (const { name, endpoint } of dynamoTargets()) {
  describe(`DynamoDB sessions stored in the first turn-item layout: ${name}`, () => {
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
      const put = async (fixture: Record<string, unknown>[]) => {
        for (const Item of fixture) await doc.send(new PutCommand({ TableName: tableName, Item }));
      };
      const store = () => new DynamoSessionStore({ client, tableName, ttlSeconds: 3600 });
      return { items, put, store };
    };
    const expiresAt = () => Math.floor(Date.now() / 1000) + 3600;

    it('loads it, appends a turn item of the new layout to its generation, and reloads', async () => {
      // Prepare
      const { items, put, store } = await setup();
      const life = newSession('s1', 1, 'alice');
      await put(firstLayout(life, expiresAt()));
      const s = store();

      // Act
      const loaded = await s.load('s1');
      const next = chat(life, history(12));
      const v = await s.save(next, 2);
      const cold = await store().load('s1');

      // Assess
      expect(loaded).toEqual({ data: { ...chat(life, history(8)), turns: 8 }, version: 2 });
      expect(v).toBe(3);
      expect(cold).toEqual({ data: next, version: 3 });
      const turns = (await items()).filter((i) => String(i.sk).startsWith('TURN#1.ab12cd34#'));
      expect(turns).toHaveLength(3);
      const added = turns[2] ?? {};
      expect(added.p).toBe('0000000002.eeff0011');
      expect(added).not.toHaveProperty('owner');
      expect(added).not.toHaveProperty('incarnation');
      expect(typeof added.b).toBe('string');
      expect(JSON.parse(String(added.d))).toEqual({ [PATH]: history(12).slice(8) });
    });

    it('still refuses a first-layout turn item of another life', async () => {
      // Prepare
      const { put, store } = await setup();
      const life = newSession('s1', 1, 'alice');
      const fixture = firstLayout(life, expiresAt());
      Object.assign(fixture[2] ?? {}, { incarnation: 'an-earlier-life' });
      await put(fixture);

      // Act
      const load = store().load('s1');

      // Assess
      await expect(load).rejects.toMatchObject({
        code: 'session-corrupt',
        message: expect.stringMatching(/another owner or life/),
      });
    });

    it('compresses a turn item when that makes it smaller, and reads it back', async () => {
      // Prepare
      const { items, store } = await setup();
      const life = newSession('s1', 1, 'bob');
      const long = (n: number): JsonValue => ({
        role: 'assistant',
        content: `reply ${n}: ${'the agent keeps every session in one table '.repeat(20)}`,
      });
      const s = store();
      const v1 = await s.save(chat(life, [long(1), long(2), long(3), long(4)]), 0);

      // Act
      const v2 = await s.save(chat(life, [long(1), long(2), long(3), long(4), long(5)]), v1);
      const cold = await store().load('s1');

      // Assess
      const turns = (await items()).filter((i) => String(i.sk).startsWith('TURN#'));
      expect(turns.map((i) => i.e)).toEqual(['br', 'br']);
      for (const item of turns) {
        expect((item.d as Uint8Array).length).toBeLessThan(JSON.stringify(long(1)).length);
      }
      expect(cold).toEqual({
        data: chat(life, [long(1), long(2), long(3), long(4), long(5)]),
        version: v2,
      });
    });
  });
}
