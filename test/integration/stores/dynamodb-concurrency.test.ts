import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Agent, Runtime } from '../../../lib/core/index.js';
import {
  DynamoPausedRunStore,
  DynamoSessionLock,
  DynamoSessionStore,
  keys,
} from '../../../lib/stores/index.js';
import { dynamoTargets, newClient, newTable } from './dynamo.js';
import { HistoryRunner } from './history-runner.js';

for (const { name, endpoint } of dynamoTargets()) {
  describe(`DynamoDB concurrency: ${name}`, () => {
    it('runs 20 turns sent at once through 20 runtimes one at a time, none lost or doubled', async () => {
      // Prepare
      const { tableName } = await newTable(endpoint);
      const runner = new HistoryRunner();
      const active = { now: 0, max: 0 };
      const runtimes = Array.from({ length: 20 }, () => {
        // Each "Lambda" has its own client, store and lease.
        const client = newClient(endpoint);
        return new Runtime({
          sessions: new DynamoSessionStore({ client, tableName }),
          lock: new DynamoSessionLock({ client, tableName, retryMs: 10, maxRetryMs: 100 }),
          agents: [new Agent({ name: 'history', runner, native: null })],
          preHooks: [
            {
              name: 'count',
              onRun: () => {
                active.now++;
                active.max = Math.max(active.max, active.now);
                return undefined;
              },
            },
          ],
          postHooks: [{ name: 'count', onRun: () => void active.now-- }],
        });
      });

      // Act
      const replies = await Promise.all(
        runtimes.map((runtime, i) => runtime.run('history', 'shared', `turn ${i}`)),
      );
      const stored = await runtimes[0]!.sessions.load('shared');

      // Assess
      const expected = Array.from({ length: 20 }, (_, i) => `turn ${i}`);
      expect(replies.map((r) => r.status)).toEqual(Array(20).fill('completed'));
      expect(active.max).toBe(1);
      expect([...runner.calls].sort()).toEqual([...expected].sort());
      const history = (stored!.data.state.history as { history: string[] }).history;
      expect([...history].sort()).toEqual([...expected].sort());
      expect(stored?.data.turns).toBe(20);
    });

    it('of two concurrent resumes of one paused run, exactly one claims it', async () => {
      // Prepare
      const { tableName } = await newTable(endpoint);
      const [a, b] = [newClient(endpoint), newClient(endpoint)].map(
        (client) => new DynamoPausedRunStore({ client, tableName }),
      );
      const now = Date.now();
      await a!.put({
        schemaVersion: 1,
        runId: 'r1',
        sessionId: 's1',
        agent: 'assistant',
        runner: 'openai',
        createdAt: now,
        expiresAt: now + 60_000,
        status: 'pending',
        interruptions: [{ id: 'i1', kind: 'input', message: 'Which account?' }],
        state: {},
      });

      // Act
      const results = await Promise.allSettled([a!.claim('s1', 'r1'), b!.claim('s1', 'r1')]);

      // Assess
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const lost = results.find((r) => r.status === 'rejected');
      expect(lost?.reason).toMatchObject({ code: 'run-already-resumed' });
    });

    it('takes over the lease of a crashed holder once it lapses', async () => {
      // Prepare
      const { client, tableName } = await newTable(endpoint);
      const doc = DynamoDBDocumentClient.from(client);
      const crashedUntil = Date.now() + 300;
      await doc.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            pk: keys.session('s1'),
            sk: keys.lease,
            holder: 'crashed-lambda',
            leaseUntil: crashedUntil,
            expiresAt: Math.ceil(crashedUntil / 1000) + 3600,
          },
        }),
      );
      const lock = new DynamoSessionLock({ client, tableName, retryMs: 20, maxRetryMs: 50 });

      // Act
      const release = await lock.acquire('s1');
      const tookAt = Date.now();
      await release();

      // Assess
      expect(tookAt).toBeGreaterThanOrEqual(crashedUntil);
    });

    it('gives up with session-busy when the lease is not free in time', async () => {
      // Prepare
      const { client, tableName } = await newTable(endpoint);
      const holder = new DynamoSessionLock({ client, tableName });
      const waiter = new DynamoSessionLock({ client, tableName, waitMs: 200, retryMs: 20 });
      const release = await holder.acquire('s1');

      // Act
      const attempt = await waiter.acquire('s1').catch((err: unknown) => err);
      await release();

      // Assess
      expect(attempt).toMatchObject({ code: 'session-busy' });
    });

    it('renews a held lease, so a long turn keeps it', async () => {
      // Prepare
      const { client, tableName } = await newTable(endpoint);
      const holder = new DynamoSessionLock({ client, tableName, leaseMs: 300 });
      const other = new DynamoSessionLock({ client, tableName, waitMs: 200 });
      const release = await holder.acquire('s1');

      // Act
      await new Promise((resolve) => setTimeout(resolve, 700));
      const attempt = await other.acquire('s1').catch((err: unknown) => err);
      await release();
      const after = await other.acquire('s1');
      await after();

      // Assess
      expect(attempt).toMatchObject({ code: 'session-busy' });
    });
  });
}
