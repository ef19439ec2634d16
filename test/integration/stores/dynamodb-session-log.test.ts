import { brotliCompressSync } from 'node:zlib';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type JsonValue, newSession, type SessionData } from '../../../lib/core/index.js';
import { bindingOf } from '../../../lib/core/ownership.js';
import { bindingTag } from '../../../lib/stores/dynamodb/session-segments.js';
import { DynamoSessionStore, keys } from '../../../lib/stores/index.js';
import { TestClock } from '../../../lib/testing/store-contract.js';
import { dynamoTargets, newTable } from './dynamo.js';

const message = (n: number): JsonValue => ({ role: n % 2 ? 'assistant' : 'user', text: `m${n}` });
const history = (n: number) => Array.from({ length: n }, (_, i) => message(i));
function chat(data: SessionData, items: JsonValue[]): SessionData {
  return { ...data, turns: items.length, state: { openai: { schemaVersion: 1, history: items } } };
}

/** Counts the requests a store sends, by command. */
function counted(client: DynamoDBClient): Map<string, number> {
  const calls = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '?';
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: `count${Math.random()}` },
  );
  return calls;
}

for (const { name, endpoint } of dynamoTargets()) {
  describe(`DynamoDB session turn items: ${name}`, () => {
    const setup = async (clock = new TestClock()) => {
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
      const store = (cacheBytes?: number) =>
        new DynamoSessionStore({
          client,
          tableName,
          now: clock.now,
          ttlSeconds: 3600,
          ...(cacheBytes === undefined ? {} : { cacheBytes }),
        });
      return { client, tableName, doc, items, store, clock };
    };

    it('appends one turn item per save and reads only the head when warm', async () => {
      // Prepare
      const { client, items, store } = await setup();
      const warm = store();
      const calls = counted(client);
      let data = newSession('s1', 1, 'alice');
      let version = await warm.save(data, 0);

      // Act
      for (let turn = 1; turn <= 10; turn++) {
        const loaded = await warm.load('s1');
        data = chat(loaded?.data ?? data, history(turn * 4));
        version = await warm.save(data, version);
      }

      // Assess
      const requests = new Map(calls);
      const stored = await items();
      const turnItems = stored.filter((i) => String(i.sk).startsWith('TURN#'));
      expect(turnItems).toHaveLength(10);
      expect(turnItems.map((i) => JSON.parse(i.d as string) as Record<string, unknown[]>)).toEqual(
        Array.from({ length: 10 }, (_, t) => ({
          '["openai","history"]': history((t + 1) * 4).slice(t * 4),
        })),
      );
      const head = stored.find((i) => i.sk === 'META');
      expect(head?.log).toMatchObject({ segs: 10, paths: { '["openai","history"]': 40 } });
      expect(JSON.parse(head?.body as string).state).toEqual({
        openai: { schemaVersion: 1, history: [] },
      });
      // 10 warm loads: each one projected GetItem, no Query.
      expect(requests.get('GetItemCommand')).toBe(10);
      expect(requests.get('QueryCommand')).toBeUndefined();
      expect(await store().load('s1')).toEqual({ data, version });
    });

    it('reads only the newer turn items when another instance saved meanwhile', async () => {
      // Prepare
      const { store } = await setup();
      const a = store();
      const b = store();
      const life = newSession('s1', 1);
      let version = await a.save(chat(life, history(8)), 0);
      await b.load('s1');

      // Act
      version = await a.save(chat(life, history(12)), version);
      version = await a.save(chat(life, history(16)), version);
      const seenByB = await b.load('s1');
      const v = await b.save(chat(life, history(20)), version);
      const seenByA = await a.load('s1');

      // Assess
      expect(seenByB).toEqual({ data: chat(life, history(16)), version });
      expect(seenByA).toEqual({ data: chat(life, history(20)), version: v });
    });

    it('lets one of two instances appending at one version win; the loser leaves nothing', async () => {
      // Prepare
      const { store, items } = await setup();
      const [a, b] = [store(), store()];
      const life = newSession('s1', 1);
      const v1 = await a.save(chat(life, history(8)), 0);
      await b.load('s1');

      // Act
      const results = await Promise.allSettled([
        a.save(chat(life, [...history(8), 'from a']), v1),
        b.save(chat(life, [...history(8), 'from b']), v1),
      ]);

      // Assess
      const lost = results.filter((r) => r.status === 'rejected');
      expect(lost).toHaveLength(1);
      expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'session-conflict' });
      const winner = results[0]?.status === 'fulfilled' ? 'from a' : 'from b';
      const data = (await store().load('s1'))?.data;
      expect(data?.state.openai).toEqual({ schemaVersion: 1, history: [...history(8), winner] });
      expect((await items()).filter((i) => String(i.sk).startsWith('TURN#'))).toHaveLength(2);
    });

    it('rewrites the log when history is edited, and drops the old generation', async () => {
      // Prepare
      const { store, items } = await setup();
      const s = store();
      const life = newSession('s1', 1);
      const v1 = await s.save(chat(life, history(8)), 0);
      const v2 = await s.save(chat(life, history(12)), v1);
      const before = (await items()).find((i) => i.sk === 'META')?.log as { gen: string };

      // Act
      const edited = chat(life, ['summary', ...history(12).slice(6)]);
      const v3 = await s.save(edited, v2);

      // Assess
      const stored = await items();
      const after = stored.find((i) => i.sk === 'META')?.log as { gen: string; segs: number };
      expect(after.gen).not.toBe(before.gen);
      expect(after.segs).toBe(1);
      const turnItems = stored.filter((i) => String(i.sk).startsWith('TURN#'));
      expect(turnItems.map((i) => String(i.sk).split('#')[1])).toEqual([after.gen]);
      expect(await store().load('s1')).toEqual({ data: edited, version: v3 });
    });

    it('makes old turn items unreachable once cleared, and refuses items of another life', async () => {
      // Prepare
      const { store, items, doc, tableName } = await setup();
      const s = store();
      const first = newSession('s1', 1, 'alice');
      await s.save(chat(first, history(8)), 0);
      await s.delete('s1');
      const afterClear = await items();
      const second = newSession('s1', 2, 'alice');
      const v = await s.save(chat(second, history(4)), 0);
      const turn = (await items()).find((i) => String(i.sk).startsWith('TURN#'));

      // Act
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: turn?.pk, sk: turn?.sk },
          UpdateExpression: 'SET b = :other',
          ExpressionAttributeValues: { ':other': bindingTag(bindingOf(first)) },
        }),
      );
      const tampered = store().load('s1');

      // Assess
      expect(afterClear).toEqual([]);
      expect(v).toBe(1);
      await expect(tampered).rejects.toMatchObject({
        code: 'session-corrupt',
        message: expect.stringMatching(/another owner or life/),
      });
    });

    it('rewrites the log before its turn items could expire under a live head', async () => {
      // Prepare
      const clock = new TestClock();
      const { store, items } = await setup(clock);
      const s = store();
      const life = newSession('s1', clock.now());
      let version = await s.save(chat(life, history(8)), 0);

      // Act
      for (let step = 1; step <= 4; step++) {
        clock.advance(1800_000);
        version = await s.save(chat(life, history(8 + step * 4)), version);
      }
      clock.advance(3590_000);
      const loaded = await store().load('s1');

      // Assess
      const stored = await items();
      const head = stored.find((i) => i.sk === 'META');
      const gen = (head?.log as { gen?: string } | undefined)?.gen;
      const live = stored.filter((i) => String(i.sk).startsWith(`TURN#${gen}#`));
      for (const item of live)
        expect(item.expiresAt).toBeGreaterThanOrEqual(Number(head?.expiresAt));
      expect(loaded?.data.state.openai).toEqual({ schemaVersion: 1, history: history(24) });
    });

    it('loads a session stored in the old single-item layout and saves it in the new one', async () => {
      // Prepare
      const { store, items, doc, tableName } = await setup();
      const old = chat(newSession('s1', 1, 'alice'), history(30));
      const fixture = {
        pk: keys.session('s1'),
        sk: 'META',
        version: 7,
        enc: 'br',
        body: brotliCompressSync(Buffer.from(JSON.stringify(old))),
        size: 100,
        owner: 'alice',
        turns: old.turns,
        updatedAt: 1,
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
      };
      await doc.send(new PutCommand({ TableName: tableName, Item: fixture }));
      const s = store();

      // Act
      const loaded = await s.load('s1');
      const next = chat(old, history(34));
      const v = await s.save(next, 7);

      // Assess
      expect(loaded).toEqual({ data: old, version: 7 });
      const stored = await items();
      expect(stored.find((i) => i.sk === 'META')?.log).toMatchObject({ segs: 1 });
      expect(stored.filter((i) => String(i.sk).startsWith('TURN#'))).toHaveLength(1);
      expect(await store().load('s1')).toEqual({ data: next, version: v });
    });
  });
}
