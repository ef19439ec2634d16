import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { isPrincipal } from '../../transport/ids.js';
import type { ConnectionsDeployment } from '../wiring/light-deployments.js';
import { admitConnection, closeConnection } from './ws-fair-use.js';

/** The parts of an API Gateway WebSocket event the handlers read. */
export interface WebSocketEvent {
  requestContext: {
    connectionId: string;
    domainName: string;
    stage: string;
    routeKey?: string;
    authorizer?: { principalId?: unknown; principal?: unknown } | null;
  };
  body?: string | null;
  isBase64Encoded?: boolean;
}

export type WebSocketResult = Exclude<APIGatewayProxyResultV2, string>;

export const ok: WebSocketResult = { statusCode: 200 };

/**
 * The principal the $connect authorizer established: API Gateway flattens the authorizer's
 * `context` (`principal`) next to its `principalId` on every later event of the connection.
 * Checked by the front door, which refuses a missing or malformed one.
 */
export function principalOf(event: WebSocketEvent): string | undefined {
  const authorizer = event.requestContext.authorizer;
  const id = authorizer?.principal ?? authorizer?.principalId;
  return typeof id === 'string' ? id : undefined;
}

/** Where to post to this connection; WEBSOCKET_ENDPOINT overrides it (local stack, tests). */
export function endpointOf(event: WebSocketEvent, override?: string): string {
  if (override) return override;
  const { domainName, stage } = event.requestContext;
  return `https://${domainName}/${stage}`;
}

/** `$connect`: the authorizer has already let the caller in; remember who they are. */
export function createConnectHandler(
  deployment: () => Promise<ConnectionsDeployment>,
  logger?: Logger,
) {
  return async (event: WebSocketEvent): Promise<WebSocketResult> => {
    const deployed = await deployment();
    const { connections, config } = deployed;
    const principal = principalOf(event);
    // The authorizer let nobody in without one; a connection without it could do nothing anyway.
    if (!isPrincipal(principal)) {
      logger?.warn('connection refused: no principal', {
        connectionId: event.requestContext.connectionId,
      });
      return { statusCode: 401 };
    }
    const refused = await admitConnection(deployed, principal, event.requestContext.connectionId);
    if (refused) return refused;
    await connections.connect({
      connectionId: event.requestContext.connectionId,
      principal,
      endpoint: endpointOf(event, config.WEBSOCKET_ENDPOINT),
      connectedAt: Date.now(),
    });
    logger?.info('connected', { connectionId: event.requestContext.connectionId, principal });
    return ok;
  };
}

/** `$disconnect`: the connection and its subscriptions go. */
export function createDisconnectHandler(
  deployment: () => Promise<ConnectionsDeployment>,
  logger?: Logger,
) {
  return async (event: WebSocketEvent): Promise<WebSocketResult> => {
    const deployed = await deployment();
    await deployed.connections.disconnect(event.requestContext.connectionId);
    await closeConnection(deployed, principalOf(event), event.requestContext.connectionId);
    logger?.info('disconnected', { connectionId: event.requestContext.connectionId });
    return ok;
  };
}
