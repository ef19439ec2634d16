import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

export interface DynamoClientOptions {
  region?: string;
  /** An endpoint override: dynalite, DynamoDB Local, the local stack. */
  endpoint?: string;
}

/**
 * A DynamoDB client from options or the environment (AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB).
 * Credentials come from the SDK's default chain; a local endpoint without any gets dummy ones.
 */
export function createDynamoClient(options: DynamoClientOptions = {}): DynamoDBClient {
  const endpoint = options.endpoint ?? process.env.AWS_ENDPOINT_URL_DYNAMODB;
  const config: DynamoDBClientConfig = {
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
  };
  if (endpoint) {
    config.endpoint = endpoint;
    if (!process.env.AWS_ACCESS_KEY_ID) {
      config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    }
  }
  return new DynamoDBClient(config);
}
