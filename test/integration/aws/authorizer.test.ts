import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthorizerHandler } from '../../../lib/aws/handlers/authorizer.js';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import { sampleEvent } from './setup.js';

type Keys = Awaited<ReturnType<typeof generateKeyPair>>;
let server: Server;
let jwksUrl: string;
let issuerKeys: Keys;
let otherKeys: Keys;
let fetches = 0;

/** A local OIDC issuer's JWKS endpoint on 127.0.0.1. */
beforeAll(async () => {
  issuerKeys = await generateKeyPair('RS256');
  otherKeys = await generateKeyPair('RS256');
  const jwk = {
    ...(await exportJWK(issuerKeys.publicKey)),
    kid: 'key-1',
    alg: 'RS256',
    use: 'sig',
  };
  server = createServer((_req, res) => {
    fetches += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/.well-known/jwks.json`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const ISSUER = 'https://issuer.example.com/';

function sign(keys: Keys, claims: Record<string, unknown>, issuer = ISSUER): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
    .setIssuer(issuer)
    .setAudience('agent-kernel')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(keys.privateKey);
}

function authorizer() {
  const config = loadConfig({
    AUTH_MODE: 'jwks',
    JWKS_URL: jwksUrl,
    JWT_ISSUER: ISSUER,
    JWT_AUDIENCE: 'agent-kernel',
  });
  return createAuthorizerHandler(config);
}

function event(token: string): any {
  return sampleEvent('websocket/authorizer.json', { '"JWT"': JSON.stringify(token) });
}

describe('WebSocket authorizer (JWKS)', () => {
  it('lets in a token signed by the issuer’s key, fetching the key set once', async () => {
    // Prepare
    const authorize = authorizer();
    const before = fetches;

    // Act
    const first = await authorize(event(await sign(issuerKeys, { sub: 'alice' })));
    const second = await authorize(event(await sign(issuerKeys, { sub: 'bob' })));

    // Assess
    expect(first.principalId).toBe('alice');
    expect(second.principalId).toBe('bob');
    expect(fetches - before).toBe(1);
  });

  it.each([
    ['signed by another key', () => sign(otherKeys, { sub: 'alice' })],
    ['from another issuer', () => sign(issuerKeys, { sub: 'alice' }, 'https://evil.example.com/')],
  ])('refuses a token %s', async (_label, token) => {
    // Prepare
    const authorize = authorizer();

    // Act
    const result = authorize(event(await token()));

    // Assess: a Deny policy (API Gateway's 403), not a thrown error (a Lambda error).
    expect((await result).policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });
  });
});
