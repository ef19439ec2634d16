import { brotliCompressSync, gzipSync } from 'node:zlib';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { newSession } from '../../../lib/core/index.js';
import {
  DynamoPausedRunStore,
  DynamoRunRecordStore,
  DynamoSessionStore,
  keys,
} from '../../../lib/stores/index.js';
import { dynamoTargets, newTable } from './dynamo.js';

const future = Math.floor(Date.now() / 1000) + 3600;
const session = newSession('s1', 1, 'alice');
const json = (value: unknown) => JSON.stringify(value);

/** Head items as a tamperer could leave them, and the detail each must report. */
const tampered: [string, Record<string, unknown>, RegExp][] = [
  ['invalid JSON', { enc: 'json', body: '{"schemaVersion": 1,' }, /invalid JSON/],
  [
    'a future schemaVersion',
    { enc: 'json', body: json({ ...session, schemaVersion: 2 }) },
    /schemaVersion 2/,
  ],
  [
    'no schemaVersion',
    { enc: 'json', body: json({ ...session, schemaVersion: undefined }) },
    /schemaVersion undefined/,
  ],
  [
    'a __proto__ key',
    { enc: 'json', body: json(session).replace('"state":{}', '"state":{"__proto__":{"x":1}}') },
    /__proto__/,
  ],
  [
    'a constructor key',
    {
      enc: 'json',
      body: json(session).replace('"context":{}', '"context":{"a":{"constructor":{}}}'),
    },
    /constructor/,
  ],
  [
    'a \\u-escaped __proto__ key',
    { enc: 'json', body: json(session).replace('"state":{}', '"state":{"\\u005f_proto__":{}}') },
    /__proto__/,
  ],
  ['wrong types', { enc: 'json', body: json({ ...session, turns: 'many' }) }, /turns/],
  [
    'another session',
    { enc: 'json', body: json({ ...session, id: 'other' }) },
    /holds session "other"/,
  ],
  ['bad brotli', { enc: 'br', body: Buffer.from('not brotli at all') }, /bad br compression/],
  ['gzip that is not JSON', { enc: 'gzip', body: gzipSync('nope') }, /invalid JSON/],
  [
    'a brotli bomb',
    { enc: 'br', body: brotliCompressSync(Buffer.alloc(70 * 1024 * 1024, 32)) },
    /bad br compression/,
  ],
  ['an unknown encoding', { enc: 'zstd', body: 'x' }, /enc/],
  ['a string version', { enc: 'json', body: json(session), version: '1' }, /version/],
  ['chunks that do not exist', { enc: 'br', chunks: 2, gen: '1.abc' }, /chunks are missing/],
];

for (const { name, endpoint } of dynamoTargets()) {
  describe(`DynamoDB tampered items: ${name}`, () => {
    it.each(tampered)(
      'a session head with %s is session-corrupt, never overwritten',
      async (_, attrs, detail) => {
        // Prepare
        const { client, tableName } = await newTable(endpoint);
        const doc = DynamoDBDocumentClient.from(client);
        const Key = { pk: keys.session('s1'), sk: keys.meta };
        await doc.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...Key, version: 1, expiresAt: future, ...attrs },
          }),
        );
        const store = new DynamoSessionStore({ client, tableName });

        // Act
        const load = await store.load('s1').catch((err: unknown) => err);
        const overwrite = await store.save(newSession('s1', 2), 0).catch((err: unknown) => err);
        const { Item } = await doc.send(new GetCommand({ TableName: tableName, Key }));

        // Assess
        expect(load).toMatchObject({ name: 'SessionCorrupt', code: 'session-corrupt' });
        expect((load as Error).message).toMatch(detail);
        expect(overwrite).toMatchObject({ code: 'session-conflict' });
        expect(Item).toMatchObject({ version: attrs.version ?? 1, enc: attrs.enc });
      },
    );

    it('a tampered paused run or run record is record-corrupt', async () => {
      // Prepare
      const { client, tableName } = await newTable(endpoint);
      const doc = DynamoDBDocumentClient.from(client);
      const put = (sk: string, attrs: Record<string, unknown>) =>
        doc.send(
          new PutCommand({
            TableName: tableName,
            Item: { pk: keys.session('s1'), sk, expiresAt: future, ...attrs },
          }),
        );
      await put(keys.paused('r1'), { status: 'pending', enc: 'json', body: '{"schemaVersion":1}' });
      await put(keys.paused('r2'), { status: 'exploded', enc: 'json', body: '[]' });
      await put(keys.run('r1'), { status: 'queued', enc: 'json', body: '{"__proto__":{}}' });
      const paused = new DynamoPausedRunStore({ client, tableName });
      const runs = new DynamoRunRecordStore({ client, tableName });

      // Act
      const results = await Promise.allSettled([
        paused.get('s1', 'r1'),
        paused.get('s1', 'r2'),
        paused.list('s1'),
        runs.get('s1', 'r1'),
      ]);

      // Assess
      for (const r of results) {
        expect(r).toMatchObject({ status: 'rejected', reason: { code: 'record-corrupt' } });
      }
    });
  });
}
