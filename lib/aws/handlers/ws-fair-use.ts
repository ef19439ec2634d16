import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { QuotaExceeded } from '../../app/fair-use.js';
import { errorBody, errorResponse } from '../middleware/http-errors.js';
import type { ConnectionsDeployment } from '../wiring/light-deployments.js';

/**
 * `$connect` under fair use: the principal's open connections against its `connections` limit.
 * A refusal is the handshake's answer (429, `Retry-After`, the `quota-exceeded` body); nothing
 * is stored for the connection.
 */
export async function admitConnection(
  deployed: Pick<ConnectionsDeployment, 'fairUse'>,
  principal: string,
  connectionId: string,
): Promise<Exclude<APIGatewayProxyResultV2, string> | undefined> {
  if (!deployed.fairUse) return undefined;
  try {
    await deployed.fairUse.openConnection(principal, connectionId);
    return undefined;
  } catch (err) {
    if (err instanceof QuotaExceeded) return errorResponse(errorBody(err));
    throw err;
  }
}

/** `$disconnect`: the connection's lease goes (one never closed lapses with its lease). */
export async function closeConnection(
  deployed: Pick<ConnectionsDeployment, 'fairUse'>,
  principal: string | undefined,
  connectionId: string,
): Promise<void> {
  if (!deployed.fairUse || !principal) return;
  await deployed.fairUse.closeConnection(principal, connectionId);
}
