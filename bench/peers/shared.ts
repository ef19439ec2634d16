/**
 * What every hand-written peer shares: the bare SDK clients, each made on first use (as the
 * kernel's functions make theirs), a DynamoDB document client and one @connections client per
 * endpoint. Only what a careful hand-written Lambda would have; no logger but `console`.
 */

import {
  ApiGatewayManagementApiClient,
  GoneException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export const TABLE = process.env.TABLE_NAME ?? '';
if (!TABLE) throw new Error('TABLE_NAME is required');

let documents: DynamoDBDocumentClient | undefined;
export function table(): DynamoDBDocumentClient {
  documents ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documents;
}

const management = new Map<string, ApiGatewayManagementApiClient>();
/** Posts `data` to a connection; false when the connection is gone. */
export async function post(endpoint: string, connectionId: string, data: unknown) {
  let client = management.get(endpoint);
  if (!client) {
    client = new ApiGatewayManagementApiClient({ endpoint });
    management.set(endpoint, client);
  }
  try {
    await client.send(
      new PostToConnectionCommand({ ConnectionId: connectionId, Data: JSON.stringify(data) }),
    );
    return true;
  } catch (error) {
    if (error instanceof GoneException) return false;
    throw error;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
