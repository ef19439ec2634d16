import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, inject } from 'vitest';
import { createDynamoClient, createTable } from '../../../lib/stores/index.js';
import { quickRetries } from '../../helpers/quick-retries.js';

/** The two emulators the global setup started; every store test runs against both. */
export function dynamoTargets(): { name: string; endpoint: string }[] {
  return [
    { name: 'dynalite', endpoint: inject('dynaliteEndpoint') },
    { name: 'DynamoDB Local', endpoint: inject('dynamoLocalEndpoint') },
  ];
}

const clients: DynamoDBClient[] = [];
afterAll(() => {
  for (const client of clients.splice(0)) client.destroy();
});

/** A fresh client (destroyed after the file's tests), its retry waits shortened (quick-retries.ts). */
export function newClient(endpoint: string): DynamoDBClient {
  const client = quickRetries(createDynamoClient({ endpoint, region: 'us-east-1' }));
  clients.push(client);
  return client;
}

/** A new table of our key design, so no test sees another's items. */
export async function newTable(
  endpoint: string,
): Promise<{ client: DynamoDBClient; tableName: string }> {
  const client = newClient(endpoint);
  const tableName = `t-${randomBytes(6).toString('hex')}`;
  await createTable(client, tableName);
  return { client, tableName };
}
