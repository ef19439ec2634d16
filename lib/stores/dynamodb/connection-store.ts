import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type Connection,
  ConnectionNotFound,
  type ConnectionStore,
  type Subscription,
} from '../../app/ports/connections.js';
import { InvalidRecord, RecordCorrupt } from '../../core/stores.js';
import { DynamoBase, isConditionFailed } from './base.js';
import { checkConnection, checkConnItem, checkSubItem } from './connection-items.js';
import { keys } from './table.js';

/**
 * Connections as `CONN#<id>/META` (principal, endpoint, and the string set of subscribed session
 * ids, so disconnect needs no scan or index); subscriptions as `SUBS#<sessionId>/SUB#<connectionId>`
 * carrying the endpoint, so fan-out lists a session's subscribers with one query. Subscriptions
 * have a partition of their own, not the session's: the functions that only deliver events are
 * allowed `CONN#*` and `SUBS#*` items and can read no session.
 */
export class DynamoConnectionStore extends DynamoBase implements ConnectionStore {
  async connect(connection: Connection): Promise<void> {
    const parsed = checkConnection(connection);
    if (!parsed.ok) throw new InvalidRecord('connection', parsed.message);
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: keys.connection(connection.connectionId),
          sk: keys.meta,
          ...parsed.value,
          expiresAt: this.expiry(),
        },
      }),
    );
  }

  async get(connectionId: string): Promise<(Connection & { sessions: string[] }) | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk: keys.connection(connectionId), sk: keys.meta },
        ConsistentRead: true,
      }),
    );
    if (!Item || this.expired(Item)) return undefined;
    const { connection, sessions } = parseConn(connectionId, Item);
    return { ...connection, sessions };
  }

  async subscribe(
    connectionId: string,
    sessionId: string,
    format: Subscription['format'] = 'native',
  ): Promise<void> {
    let attributes: Record<string, unknown> | undefined;
    try {
      // The CONN item first, so a disconnect that follows finds this subscription.
      ({ Attributes: attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keys.connection(connectionId), sk: keys.meta },
          UpdateExpression: 'ADD sessions :session',
          ConditionExpression: 'attribute_exists(pk) AND expiresAt > :now',
          ExpressionAttributeValues: {
            ':session': new Set([sessionId]),
            ':now': this.nowSeconds(),
          },
          ReturnValues: 'ALL_NEW',
        }),
      ));
    } catch (err) {
      if (isConditionFailed(err)) throw new ConnectionNotFound(connectionId);
      throw err;
    }
    const { connection } = parseConn(connectionId, attributes ?? {});
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: keys.subscriptions(sessionId),
          sk: keys.subscription(connectionId),
          ...connection,
          sessionId,
          format,
          expiresAt: attributes?.expiresAt,
        },
      }),
    );
  }

  async unsubscribe(connectionId: string, sessionId: string): Promise<void> {
    await this.doc.send(
      new DeleteCommand({
        TableName: this.table,
        Key: { pk: keys.subscriptions(sessionId), sk: keys.subscription(connectionId) },
      }),
    );
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keys.connection(connectionId), sk: keys.meta },
          UpdateExpression: 'DELETE sessions :session',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':session': new Set([sessionId]) },
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }

  async subscribers(sessionId: string): Promise<Subscription[]> {
    const found: Subscription[] = [];
    // Consistent: a reconnect subscribes, then reads the stored events; a message stored after
    // that read must find the subscription, or the client would miss it (RunEvents.replay).
    for await (const item of this.queryPrefix(
      keys.subscriptions(sessionId),
      keys.subscriptionPrefix,
      { consistent: true },
    )) {
      if (this.expired(item)) continue;
      const { pk: _pk, sk: _sk, expiresAt: _ttl, ...rest } = item;
      const parsed = checkSubItem(rest);
      if (!parsed.ok) throw new RecordCorrupt('subscription', String(item.sk), parsed.message);
      found.push(parsed.value);
    }
    return found;
  }

  async disconnect(connectionId: string): Promise<void> {
    const { Attributes } = await this.doc.send(
      new DeleteCommand({
        TableName: this.table,
        Key: { pk: keys.connection(connectionId), sk: keys.meta },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const sessions = Attributes?.sessions instanceof Set ? [...Attributes.sessions] : [];
    await this.deleteQuietly(
      sessions.map((id) => ({
        pk: keys.subscriptions(String(id)),
        sk: keys.subscription(connectionId),
      })),
    );
  }
}

function parseConn(connectionId: string, item: Record<string, unknown>) {
  const { pk: _pk, sk: _sk, expiresAt: _ttl, ...rest } = item;
  const parsed = checkConnItem(rest);
  if (!parsed.ok) throw new RecordCorrupt('connection', connectionId, parsed.message);
  const { sessions, ...connection } = parsed.value;
  return { connection, sessions: [...(sessions ?? [])].map(String).sort() };
}
