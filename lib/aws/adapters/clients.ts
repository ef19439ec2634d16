import { SQSClient } from '@aws-sdk/client-sqs';
import { captureClient } from '../../tracing/capture.js';
import type { Config } from '../wiring/config.js';
import { localCredentials, type ManagementClients, managementFor } from './management-api.js';

export { managementClients } from './management-api.js';

/** The AWS clients the queue and WebSocket functions use, injectable so tests reach emulators. */
export interface AwsClients {
  sqs: SQSClient;
  management: ManagementClients;
}

/** Clients from the environment; the endpoint overrides point them at the local stack. */
export function clientsFor(config: Config): AwsClients {
  const credentials = localCredentials(config);
  // Captured: each call is an `aws` span under the active request span (no-op when untraced).
  const sqs = captureClient(
    new SQSClient({
      region: config.AWS_REGION,
      ...(config.SQS_ENDPOINT ? { endpoint: config.SQS_ENDPOINT } : {}),
      ...(credentials ? { credentials } : {}),
    }),
  );
  return { sqs, management: managementFor(config) };
}
