import type { Logger } from '@aws-lambda-powertools/logger';
import { GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import type { Connection, ConnectionStore, Subscription } from '../core/stores.js';
import { traceChild } from '../core/tracer.js';
import { type AgUiEventsMessage, toAgUiMessage } from '../transport/ag-ui.js';
import type { EventsMessage, ServerMessage } from '../transport/protocol.js';
import { countMetric, retrying } from './after-turn.js';
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
  return err instanceof GoneException || statusOf(err) === 410;
}

/** Tries per connection before it is dropped, and the first pause between them. */
const CONNECTION_ATTEMPTS = 3;
const CONNECTION_RETRY_MS = 100;

/**
 * Posts an `events` message to every subscriber of its session, and to `requester` (who asked
 * for the run) even if not subscribed, side by side. A connection that keeps failing (not 410)
 * is retried alone a few times, then dropped (its connection and subscriptions deleted) and
 * counted: the others get the message once and the message does not fail because of it. Only
 * when API Gateway itself refuses (throttled, forbidden, unreachable) is the message failed, so
 * it is retried as a whole (clients drop seen seqs).
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
      const body = target.format === 'ag-ui' && agUi ? agUi : message;
      try {
        const delivered = await retrying(() => postTo(clients, connections, target, body), {
          attempts: CONNECTION_ATTEMPTS,
          baseMs: CONNECTION_RETRY_MS,
        });
        if (delivered) posted++;
        else logger?.info('gone connection deleted', { connectionId: target.connectionId });
      } catch (err) {
        if (!isConnectionFault(err)) {
          failures.push(err);
          return;
        }
        await connections.disconnect(target.connectionId).catch(() => undefined);
        countMetric(logger, 'ConnectionsDropped', {
          connectionId: target.connectionId,
          status: statusOf(err),
        });
      }
    }),
  );
  if (failures.length > 0) throw failures[0];
  return posted;
}

/**
 * An answer about this one connection (a 4xx or 5xx from its post), not about us: API Gateway
 * throttling (429), a refused signature or permission (403), or no answer at all.
 */
function isConnectionFault(err: unknown): boolean {
  const status = statusOf(err);
  return status !== undefined && status !== 429 && status !== 403 && status !== 401;
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}
