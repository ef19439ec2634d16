import type { Logger } from '@aws-lambda-powertools/logger';
import { GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import type { Connection, ConnectionStore, Subscription } from '../core/stores.js';
import { traceChild } from '../core/tracer.js';
import { type AgUiEventsMessage, toAgUiMessage } from '../transport/ag-ui.js';
import type { EventsMessage, ServerMessage } from '../transport/protocol.js';
import type { AwsClients } from './clients.js';

/**
 * Posts one message to a connection. A gone connection (410) is deleted with its
 * subscriptions and reported as `false`; any other failure is thrown.
 */
export async function postTo(
  clients: Pick<AwsClients, 'management'>,
  connections: ConnectionStore,
  connection: Pick<Connection, 'connectionId' | 'endpoint'>,
  message: ServerMessage | AgUiEventsMessage,
): Promise<boolean> {
  try {
    await clients.management(connection.endpoint).send(
      new PostToConnectionCommand({
        ConnectionId: connection.connectionId,
        Data: Buffer.from(JSON.stringify(message)),
      }),
    );
    return true;
  } catch (err) {
    if (!isGone(err)) throw err;
    await connections.disconnect(connection.connectionId);
    return false;
  }
}

function isGone(err: unknown): boolean {
  return (
    err instanceof GoneException ||
    (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 410
  );
}

/**
 * Posts an `events` message to every subscriber of its session, and to `requester` (who asked
 * for the run) even if not subscribed. Every target is tried; the first failure other than a
 * gone connection is thrown afterwards, so the batch is retried (clients drop seen seqs).
 */
export async function postToSession(
  clients: Pick<AwsClients, 'management'>,
  connections: ConnectionStore,
  message: EventsMessage,
  requester?: string,
  logger?: Logger,
): Promise<void> {
  // A `delivery` span: EventsDelivered / DeliveryFailures come from it (lib/tracing).
  const attributes = { sessionId: message.sessionId, runId: message.runId };
  return traceChild('deliver', 'delivery', attributes, async (span) => {
    const posted = await postToTargets(clients, connections, message, requester, logger);
    span.setAttributes({ events: message.events.length, connections: posted });
  });
}

/** Answers how many connections got the message. */
async function postToTargets(
  clients: Pick<AwsClients, 'management'>,
  connections: ConnectionStore,
  message: EventsMessage,
  requester?: string,
  logger?: Logger,
): Promise<number> {
  const targets: Pick<Subscription, 'connectionId' | 'endpoint' | 'format'>[] =
    await connections.subscribers(message.sessionId);
  if (requester !== undefined && !targets.some((t) => t.connectionId === requester)) {
    const connection = await connections.get(requester);
    if (connection) targets.push({ ...connection, format: 'native' });
  }
  const agUi = targets.some((t) => t.format === 'ag-ui') ? toAgUiMessage(message) : undefined;
  const failures: unknown[] = [];
  let posted = 0;
  // Posted side by side: one slow connection should not hold up the others.
  await Promise.all(
    targets.map(async (target) => {
      try {
        const body = target.format === 'ag-ui' && agUi ? agUi : message;
        const delivered = await postTo(clients, connections, target, body);
        if (delivered) posted++;
        else logger?.info('gone connection deleted', { connectionId: target.connectionId });
      } catch (err) {
        failures.push(err);
      }
    }),
  );
  if (failures.length > 0) throw failures[0];
  return posted;
}
