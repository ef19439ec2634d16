import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthorizerHandler, tokenOf } from '../../../lib/aws/handlers/authorizer.js';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import { sampleEvent } from './sample.js';

// The token rule (docs/protocol.md "Tokens"): the header wins, `?token=` only on a WebSocket
// handshake, `exp` required in every mode, `iss` / `aud` checked when configured.
const SECRET = 'a-development-secret-of-32-bytes!';
const key = new TextEncoder().encode(SECRET);
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

interface Claims {
  sub?: string;
  exp?: string | false;
  iss?: string;
  aud?: string;
}

function hs256(claims: Claims): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  return finish(jwt, claims).sign(key);
}

function finish(jwt: SignJWT, { sub = 'alice', exp = '5m', iss, aud }: Claims): SignJWT {
  jwt.setSubject(sub);
  if (exp !== false) jwt.setExpirationTime(exp);
  if (iss) jwt.setIssuer(iss);
  if (aud) jwt.setAudience(aud);
  return jwt;
}

/** A WebSocket $connect event (the sample), with a query token and/or an Authorization header. */
function connectEvent(query?: string, header?: string): any {
  const event = sampleEvent('websocket/authorizer.json');
  event.queryStringParameters = query === undefined ? {} : { token: query };
  event.headers = { ...event.headers };
  delete event.headers.Authorization;
  if (header) event.headers.Authorization = `Bearer ${header}`;
  return event;
}

/** A request of an HTTP route (the HTTP API's Lambda authorizer, the stream function). */
function httpEvent(query?: string, header?: string): any {
  return {
    type: 'REQUEST',
    methodArn: 'function-url',
    headers: header ? { authorization: `Bearer ${header}` } : {},
    queryStringParameters: query === undefined ? {} : { token: query },
  };
}

const principal = (result: { policyDocument: any; principalId: string }) =>
  result.policyDocument.Statement[0].Effect === 'Allow' ? result.principalId : undefined;

describe('where a token comes from', () => {
  const authorize = createAuthorizerHandler(loadConfig({ AUTH_MODE: 'hs256', JWT_SECRET: SECRET }));

  it('the header wins over ?token= on a WebSocket handshake', async () => {
    // Prepare
    const [alice, mallory] = [await hs256({ sub: 'alice' }), await hs256({ sub: 'mallory' })];

    // Act
    const both = await authorize(connectEvent(mallory, alice));
    const queryOnly = await authorize(connectEvent(mallory));

    // Assess
    expect(principal(both)).toBe('alice');
    expect(principal(queryOnly)).toBe('mallory');
  });

  it('?token= counts on no HTTP route: the header or nothing', async () => {
    // Prepare
    const [alice, mallory] = [await hs256({ sub: 'alice' }), await hs256({ sub: 'mallory' })];

    // Act
    const queryOnly = await authorize(httpEvent(alice));
    const both = await authorize(httpEvent(mallory, alice));

    // Assess
    expect(principal(queryOnly)).toBeUndefined();
    expect(principal(both)).toBe('alice');
    expect(tokenOf(httpEvent(alice))).toBeUndefined();
  });

  it('a malformed Authorization header falls back to nothing on HTTP, to ?token= on a handshake', async () => {
    // Prepare
    const alice = await hs256({ sub: 'alice' });
    const basic = { ...connectEvent(alice), headers: { Authorization: 'Basic abc' } };

    // Act / Assess
    expect(tokenOf(basic)).toBe(alice);
    expect(tokenOf({ ...httpEvent(alice), headers: { authorization: 'Basic abc' } })).toBe(
      undefined,
    );
  });
});

describe('exp, iss and aud', () => {
  it('hs256: refuses a token without exp, on the header and on the handshake', async () => {
    // Prepare
    const authorize = createAuthorizerHandler(
      loadConfig({ AUTH_MODE: 'hs256', JWT_SECRET: SECRET }),
    );
    const forever = await hs256({ exp: false });

    // Act / Assess
    expect(principal(await authorize(connectEvent(forever)))).toBeUndefined();
    expect(principal(await authorize(httpEvent(undefined, forever)))).toBeUndefined();
    expect(principal(await authorize(httpEvent(undefined, await hs256({}))))).toBe('alice');
  });

  it.each([
    ['the right iss and aud', { iss: 'https://id.test/', aud: 'kernel' }, 'alice'],
    ['another aud', { iss: 'https://id.test/', aud: 'other' }, undefined],
    ['another iss', { iss: 'https://evil.test/', aud: 'kernel' }, undefined],
    ['no aud', { iss: 'https://id.test/' }, undefined],
    ['no iss', { aud: 'kernel' }, undefined],
  ])('hs256 with JWT_ISSUER and JWT_AUDIENCE: %s', async (_name, claims, expected) => {
    // Prepare
    const authorize = createAuthorizerHandler(
      loadConfig({
        AUTH_MODE: 'hs256',
        JWT_SECRET: SECRET,
        JWT_ISSUER: 'https://id.test/',
        JWT_AUDIENCE: 'kernel',
      }),
    );

    // Act
    const result = await authorize(httpEvent(undefined, await hs256(claims)));

    // Assess
    expect(principal(result)).toBe(expected);
  });

  describe('jwks (an identity provider on 127.0.0.1)', () => {
    let server: Server;
    let url = '';
    let sign: (claims: Claims) => Promise<string>;
    beforeAll(async () => {
      const { publicKey, privateKey } = await generateKeyPair('RS256');
      const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
      server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ keys: [jwk] }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
      sign = (claims) =>
        finish(
          new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuedAt(),
          claims,
        ).sign(privateKey);
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('refuses a token without exp and one of another audience; lets the right one in', async () => {
      // Prepare
      const authorize = createAuthorizerHandler(
        loadConfig({
          AUTH_MODE: 'jwks',
          JWKS_URL: url,
          JWT_ISSUER: 'https://id.test/',
          JWT_AUDIENCE: 'kernel',
        }),
      );
      const good = { iss: 'https://id.test/', aud: 'kernel' };

      // Act
      const noExp = await authorize(connectEvent(await sign({ ...good, exp: false })));
      const otherAud = await authorize(connectEvent(await sign({ ...good, aud: 'other' })));
      const right = await authorize(connectEvent(await sign(good)));

      // Assess
      expect(principal(noExp)).toBeUndefined();
      expect(principal(otherAud)).toBeUndefined();
      expect(principal(right)).toBe('alice');
    });
  });
});
