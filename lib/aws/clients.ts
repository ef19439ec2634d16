import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { SQSClient } from '@aws-sdk/client-sqs';
import { captureClient } from '../tracing/capture.js';
import type { Config } from './config.js';

/** The AWS clients the queue and WebSocket functions use, injectable so tests reach emulators. */
export interface AwsClients {
  sqs: SQSClient;
  /** One @connections client per endpoint (a connection records the API stage it came from). */
  management: (endpoint: string) => ApiGatewayManagementApiClient;
}

/** Clients from the environment; the endpoint overrides point them at the local stack. */
export function clientsFor(config: Config): AwsClients {
  const local = config.SQS_ENDPOINT !== undefined;
  // Emulators accept any signature, but the SDK still needs credentials to sign.
  const credentials = local ? { accessKeyId: 'local', secretAccessKey: 'local' } : undefined;
  // Captured: each call is an `aws` span under the active request span (no-op when untraced).
  const sqs = captureClient(
    new SQSClient({
      region: config.AWS_REGION,
      ...(config.SQS_ENDPOINT ? { endpoint: config.SQS_ENDPOINT } : {}),
      ...(credentials ? { credentials } : {}),
    }),
  );
  return { sqs, management: managementClients(config.AWS_REGION, credentials) };
}

export function managementClients(
  region: string,
  credentials?: { accessKeyId: string; secretAccessKey: string },
): (endpoint: string) => ApiGatewayManagementApiClient {
  const cache = new Map<string, ApiGatewayManagementApiClient>();
  return (endpoint) => {
    let client = cache.get(endpoint);
    if (!client) {
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
