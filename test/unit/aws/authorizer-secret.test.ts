import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAuthorizerHandler } from '../../../lib/aws/handlers/authorizer.js';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import { sampleEvent } from './sample.js';

// A Secrets Manager endpoint on 127.0.0.1 (JSON 1.1): the real SDK client reads the HS256
// secret from it, as the deployed authorizer reads it by JWT_SECRET_NAME at cold start.
const SECRET = 'a-development-secret-of-32-bytes!';
let server: Server;
let endpoint: string;
let reads = 0;
let failNext = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      const body = JSON.parse(text || '{}');
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (failNext > 0 || body.SecretId !== 'agent-kernel/dev-jwt-secret') {
        failNext = Math.max(0, failNext - 1);
        res.statusCode = 400;
        res.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: 'not found' }));
        return;
      }
      reads++;
      res.end(JSON.stringify({ Name: body.SecretId, SecretString: SECRET, VersionId: 'v1' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  reads = 0;
  failNext = 0;
});

const sign = (sub: string) =>
  new SignJWT({ sub })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));

function event(token: string): any {
  const sample = sampleEvent('websocket/authorizer.json');
  sample.queryStringParameters = { token };
  return sample;
}

const config = () =>
  loadConfig({
    AUTH_MODE: 'hs256',
    JWT_SECRET_NAME: 'agent-kernel/dev-jwt-secret',
    SECRETS_MANAGER_ENDPOINT: endpoint,
    AWS_REGION: 'eu-west-1',
  });

describe('HS256 secret from Secrets Manager (JWT_SECRET_NAME)', () => {
  it('reads it once per cold start and verifies with it', async () => {
    // Prepare
    const authorize = createAuthorizerHandler(config());
    // Act
    const first = await authorize(event(await sign('alice')));
    const second = await authorize(event(await sign('bob')));
    // Assess
    expect([first.principalId, second.principalId]).toEqual(['alice', 'bob']);
    expect(reads).toBe(1);
  });

  it('a failed read is an error (not a rejection) and is tried again next time', async () => {
    // Prepare
    const authorize = createAuthorizerHandler(config());
    failNext = 1;
    // Act / Assess
    await expect(authorize(event(await sign('alice')))).rejects.toThrow(/JWT_SECRET_NAME/);
    expect((await authorize(event(await sign('alice')))).principalId).toBe('alice');
    expect(reads).toBe(1);
  });

  it('hs256 needs the secret or its name', () => {
    expect(() => loadConfig({ AUTH_MODE: 'hs256' })).toThrow(/JWT_SECRET/);
  });
});
