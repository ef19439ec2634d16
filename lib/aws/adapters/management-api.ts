import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { captureClient } from '../../tracing/capture.js';
import type { Config } from '../wiring/config.js';

/** One @connections client per endpoint (a connection records the API stage it came from). */
export type ManagementClients = (endpoint: string) => ApiGatewayManagementApiClient;

/**
 * Emulators accept any signature, but the SDK still needs credentials to sign: with an endpoint
 * override (the local stack) fixed ones are used.
 */
export function localCredentials(config: Config) {
  return config.SQS_ENDPOINT !== undefined
    ? { accessKeyId: 'local', secretAccessKey: 'local' }
    : undefined;
}

/**
 * The @connections clients alone: the fan-out needs no SQS client, and importing this module
 * rather than clients.ts keeps the SQS SDK out of its bundle.
 */
export function managementFor(config: Config): ManagementClients {
  return managementClients(config.AWS_REGION, localCredentials(config));
}

export function managementClients(
  region: string,
  credentials?: { accessKeyId: string; secretAccessKey: string },
): ManagementClients {
  const cache = new Map<string, ApiGatewayManagementApiClient>();
  return (endpoint) => {
    let client = cache.get(endpoint);
    if (!client) {
      // Captured: each post is an `aws` span under the active request span.
      client = captureClient(
        new ApiGatewayManagementApiClient({
          region,
          endpoint,
          ...(credentials ? { credentials } : {}),
        }),
      );
      cache.set(endpoint, client);
    }
    return client;
  };
}
