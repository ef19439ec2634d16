import { describe, expect, it } from 'vitest';
import { connectionsFor, fanoutConnectionsFor } from '../../../lib/aws/wiring/light-deployments.js';
import { DynamoConnectionStore } from '../../../lib/stores/dynamodb/connection-store.js';

const env = {
  AWS_REGION: 'us-east-1',
  TABLE_NAME: 'agents',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  QUOTAS: 'on',
};

describe('light deployments', () => {
  it('fan-out gets the connection store and no fair use, even with QUOTAS=on', async () => {
    const deployment = await (await fanoutConnectionsFor(['TABLE_NAME'], env))();
    expect(deployment.connections).toBeInstanceOf(DynamoConnectionStore);
    expect(deployment.config.TABLE_NAME).toBe('agents');
    expect(deployment.fairUse).toBeUndefined();
  });

  it('ws-connect and ws-disconnect get fair use with QUOTAS=on', async () => {
    const deployment = await (await connectionsFor(['TABLE_NAME'], env))();
    expect(deployment.connections).toBeInstanceOf(DynamoConnectionStore);
    expect(deployment.fairUse).toBeDefined();
  });
});
