import { GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import type { Connection, ConnectionStore, Subscription } from '../../app/ports/connections.js';
import { isOwner } from '../../core/ownership.js';
import { traceChild } from '../../core/tracer.js';
import { type AgUiEventsMessage, toAgUiMessage } from '../../transport/ag-ui.js';
import type { EventsMessage, ServerMessage } from '../../transport/protocol.js';
import type { FunctionLogger } from '../middleware/json-logger.js';
import type { AwsClients } from './clients.js';
import { countMetric, retrying } from './job-metrics.js';

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

/** Who gets a session's events besides its subscribers, and whose connections only. */
export interface PostOptions {
  /** The connection that asked for the run: posted to even when not subscribed. */
  requester?: string;
  /**
   * The session's owner (the job's principal). When set, a connection of any other principal
   * gets nothing: its subscription is stale (the session was re-created by another after its
   * TTL, or planted) and is deleted. Unset only for a message of an older worker.
   */
  owner?: string;
  logger?: FunctionLogger;
}

/**
 * Posts an `events` message to every subscriber of its session, and to the requester (who asked
 * for the run) even if not subscribed, side by side; only to the owner's connections. A
 * connection that keeps failing (not 410) is retried alone a few times, then dropped (its
 * connection and subscriptions deleted) and counted: the others get the message once and the
 * message does not fail because of it. Only when API Gateway itself refuses (throttled,
 * forbidden, unreachable) is the message failed, so it is retried as a whole (clients drop seen
 * seqs).
 */
export async function postToSession(
  clients: Pick<AwsClients, 'management'>,
  connections: ConnectionStore,
  message: EventsMessage,
  options: PostOptions = {},
): Promise<void> {
  // A `delivery` span: EventsDelivered / DeliveryFailures come from it (lib/tracing).
  const attributes = { sessionId: message.sessionId, runId: message.runId };
  return traceChild('deliver', 'delivery', attributes, async (span) => {
    const targets = await targetsOf(connections, message.sessionId, options);
    const posted = await postToTargets(clients, connections, message, targets, options.logger);
    span.setAttributes({ events: message.events.length, connections: posted });
  });
}

type Target = Pick<Subscription, 'connectionId' | 'endpoint' | 'format'>;

/** The session's subscribers and the requester, of the owner only; stale subscriptions deleted. */
async function targetsOf(
  connections: ConnectionStore,
  sessionId: string,
  { requester, owner, logger }: PostOptions,
): Promise<Target[]> {
  const targets: Target[] = [];
  // The one owner rule: a message of no owner is nobody's (and is no reason to drop subscriptions).
  if (owner === undefined) {
    logger?.warn('events message without an owner: delivered to nobody', { sessionId });
    return targets;
  }
  for (const subscription of await connections.subscribers(sessionId)) {
    if (isOwner(owner, subscription.principal)) {
      targets.push(subscription);
      continue;
    }
    const { connectionId } = subscription;
    await connections.unsubscribe(connectionId, sessionId).catch(() => undefined);
    logger?.warn('stale subscription of another principal deleted', { connectionId, sessionId });
  }
  if (requester !== undefined && !targets.some((t) => t.connectionId === requester)) {
    const connection = await connections.get(requester);
    if (connection && isOwner(owner, connection.principal)) {
      targets.push({ ...connection, format: 'native' });
    }
  }
  return targets;
}

/** Answers how many connections got the message. */
async function postToTargets(
  clients: Pick<AwsClients, 'management'>,
  connections: ConnectionStore,
  message: EventsMessage,
  targets: Target[],
  logger?: FunctionLogger,
): Promise<number> {
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
