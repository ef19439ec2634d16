import { describe, expect, it } from 'vitest';
import {
  createConnectHandler,
  createDisconnectHandler,
  endpointOf,
  type WebSocketEvent,
} from '../../../lib/aws/handlers/ws-connection.js';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import type { ConnectionsDeployment } from '../../../lib/aws/wiring/light-deployments.js';
import { noopTracer } from '../../../lib/core/tracer.js';
import { InMemoryConnectionStore } from '../../../lib/stores/memory/connection-store.js';

function deployment(env: Record<string, string> = {}) {
  const connections = new InMemoryConnectionStore();
  const deployed = {
    config: loadConfig({ TABLE_NAME: 'table', ...env }),
    connections: connections as unknown as ConnectionsDeployment['connections'],
    tracer: noopTracer,
  };
  return { connections, deployment: async () => deployed };
}

function event(authorizer: WebSocketEvent['requestContext']['authorizer']): WebSocketEvent {
  return {
    requestContext: {
      connectionId: 'c-1',
      domainName: 'abc.execute-api',
      stage: 'prod',
      authorizer,
    },
  };
}

describe('ws-connect / ws-disconnect (lib/aws/handlers/ws-connection.ts)', () => {
  it('stores the connection with the authorizer’s principal and the API’s endpoint', async () => {
    // Prepare
    const { connections, deployment: d } = deployment();

    // Act
    const result = await createConnectHandler(d)(event({ principal: 'ada' }));

    // Assess
    expect(result).toEqual({ statusCode: 200 });
    expect(await connections.get('c-1')).toMatchObject({
      principal: 'ada',
      endpoint: 'https://abc.execute-api/prod',
      sessions: [],
    });
  });

  it('refuses a connection with no principal (401) and stores nothing', async () => {
    // Prepare
    const { connections, deployment: d } = deployment();

    // Act
    const results = await Promise.all(
      [null, {}, { principalId: 42 }, { principal: '' }].map((a) =>
        createConnectHandler(d)(event(a as never)),
      ),
    );

    // Assess
    expect(results.map((r) => r.statusCode)).toEqual([401, 401, 401, 401]);
    expect(await connections.get('c-1')).toBeUndefined();
  });

  it('uses WEBSOCKET_ENDPOINT when set (the local stack) and removes the connection on disconnect', async () => {
    // Prepare
    const { connections, deployment: d } = deployment({
      WEBSOCKET_ENDPOINT: 'http://127.0.0.1:3001',
    });
    await createConnectHandler(d)(event({ principalId: 'ada' }));
    const stored = await connections.get('c-1');

    // Act
    const result = await createDisconnectHandler(d)(event({ principalId: 'ada' }));

    // Assess
    expect(stored?.endpoint).toBe('http://127.0.0.1:3001');
    expect(endpointOf(event(null))).toBe('https://abc.execute-api/prod');
    expect(result).toEqual({ statusCode: 200 });
    expect(await connections.get('c-1')).toBeUndefined();
  });
});
