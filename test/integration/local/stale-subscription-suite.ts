import { DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { createDynamoClient } from '../../../lib/stores/dynamodb/index.js';
import { keys } from '../../../lib/stores/dynamodb/table.js';
import { pause, WsUser } from './clients.js';

/**
 * A subscription item the front door never wrote: mallory's connection on alice's session, as a
 * session re-created by another principal after its TTL (or a stray write) would leave it.
 * Delivery must check each subscriber against the session's owner, not trust the item: the
 * fan-out function (`sqs-fanout`) and the worker itself (`direct`) alike.
 */
export function staleSubscriptionSuite(mode: 'sqs-fanout' | 'direct'): void {
  let stack: LocalStack;
  let doc: DynamoDBDocumentClient;
  const users: WsUser[] = [];

  beforeAll(async () => {
    process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
    process.env.DELIVERY_MODE = mode;
    for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TABLE_NAME', 'DYNAMODB_ENDPOINT']) {
      delete process.env[key];
    }
    stack = await startLocalStack();
    doc = DynamoDBDocumentClient.from(
      createDynamoClient({ endpoint: process.env.DYNAMODB_ENDPOINT as string }),
    );
  }, 60_000);
  afterAll(async () => {
    for (const user of users) user.close();
    doc?.destroy();
    await stack?.stop();
  });

  const TABLE = 'agent-kernel-local';
  const CANARY = 'ALICE-STALE-CANARY';

  async function user(principal: string): Promise<WsUser> {
    const client = await WsUser.connect(stack, principal);
    users.push(client);
    return client;
  }

  /** The stored connection item of `principal` (one connection each here). */
  async function connectionOf(principal: string): Promise<Record<string, any>> {
    const { Items = [] } = await doc.send(new ScanCommand({ TableName: TABLE }));
    const found = Items.find((item) => item.sk === keys.meta && item.principal === principal);
    if (!found) throw new Error(`no connection of ${principal}`);
    return found;
  }

  async function plantSubscription(connection: Record<string, any>, sessionId: string) {
    const { connectionId, principal, endpoint, connectedAt, expiresAt } = connection;
    await doc.send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          pk: keys.subscriptions(sessionId),
          sk: keys.subscription(connectionId),
          connectionId,
          principal,
          endpoint,
          connectedAt,
          sessionId,
          format: 'native',
          expiresAt,
        },
      }),
    );
  }

  async function subscriptionExists(connectionId: string, sessionId: string): Promise<boolean> {
    const { Item } = await doc.send(
      new GetCommand({
        TableName: TABLE,
        Key: { pk: keys.subscriptions(sessionId), sk: keys.subscription(connectionId) },
        ConsistentRead: true,
      }),
    );
    return Item !== undefined;
  }

  describe(`a stale subscription of another principal (${mode})`, () => {
    it('gets none of the owner’s events and is deleted on delivery', async () => {
      // Prepare: alice owns the session; mallory's connection is planted on it.
      const alice = await user('alice');
      const mallory = await user('mallory');
      const sessionId = 'stale-1';
      alice.send({ action: 'run', requestId: 'st-r1', agent: 'demo', sessionId, input: 'first' });
      await alice.terminal((await alice.answer('st-r1')).runId);
      const malloryConnection = await connectionOf('mallory');
      await plantSubscription(malloryConnection, sessionId);
      expect(await subscriptionExists(malloryConnection.connectionId, sessionId)).toBe(true);

      // Act: alice's next turn is fanned out to the session's subscribers.
      alice.send({
        action: 'run',
        requestId: 'st-r2',
        agent: 'demo',
        sessionId,
        input: `second ${CANARY}`,
      });
      const accepted = await alice.answer('st-r2');
      const end = await alice.terminal(accepted.runId);
      await pause(500);

      // Assess: alice got her run; mallory nothing; the planted item is gone.
      expect(JSON.stringify(alice.messages)).toContain(CANARY);
      expect(end.events.at(-1).type).toBe('run-finished');
      expect(JSON.stringify(mallory.messages)).not.toContain(CANARY);
      expect(mallory.eventSessions().has(sessionId)).toBe(false);
      expect(await subscriptionExists(malloryConnection.connectionId, sessionId)).toBe(false);
    });

    it('leaves the owner’s own subscriptions on other connections in place', async () => {
      // Prepare: alice's second connection subscribes to her session the ordinary way.
      const alice = await user('alice2');
      const aliceTab = await user('alice2');
      const sessionId = 'stale-2';
      alice.send({ action: 'run', requestId: 'st2-r1', agent: 'demo', sessionId, input: 'one' });
      await alice.terminal((await alice.answer('st2-r1')).runId);
      // A subscribe that succeeds is not answered.
      aliceTab.send({ action: 'subscribe', requestId: 'st2-sub', sessionId });
      await pause(300);
      expect(aliceTab.messages).toEqual([]);

      // Act
      alice.send({ action: 'run', requestId: 'st2-r2', agent: 'demo', sessionId, input: 'two' });
      const accepted = await alice.answer('st2-r2');

      // Assess: the owner's other tab still gets the run.
      const seen = await aliceTab.terminal(accepted.runId);
      expect(seen.sessionId).toBe(sessionId);
    });
  });
}
