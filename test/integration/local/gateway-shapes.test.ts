import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAuthorizerHandler } from '../../../lib/aws/handlers/authorizer.js';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import { type Gateway, startGateway } from '../../../lib/local/gateway.js';
import { connect } from './ws-client.js';

// The local gateway hands the handlers the event shapes API Gateway does (the samples in
// events/), with the principal where the deployed authorizers put it.
const SECRET = 'a-development-secret-of-32-bytes!';
const sample = (path: string) =>
  JSON.parse(readFileSync(join(import.meta.dirname, '../../../events', path), 'utf8'));
const sign = (sub: string) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));

let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

/** A gateway whose handlers record what they get. */
async function recording(httpAuth: 'jwt' | 'lambda') {
  const seen: Record<string, any[]> = { http: [], message: [] };
  const authorize = createAuthorizerHandler(loadConfig({ AUTH_MODE: 'hs256', JWT_SECRET: SECRET }));
  const ok = async () => ({ statusCode: 200 });
  gateway = await startGateway(
    {
      http: async (event) => {
        seen.http?.push(event);
        return { statusCode: 200, body: '{}' };
      },
      authorizer: (event) => authorize(event),
      connect: ok,
      disconnect: ok,
      message: async (event) => {
        seen.message?.push(event);
        return { statusCode: 200 };
      },
    },
    { secret: SECRET, context: () => ({}), httpAuth },
  );
  return seen;
}

const keysOf = (value: object) => Object.keys(value).sort();

describe('local gateway event shapes', () => {
  // A refused token: a JWT authorizer answers 401, a Lambda authorizer's Deny 403.
  it.each([
    ['jwt', 'http/post-runs.json', 401],
    ['lambda', 'http/post-runs-lambda-authorizer.json', 403],
  ] as const)(
    'HTTP with the %s authorizer: the authorizer context of %s',
    async (mode, path, status) => {
      // Prepare
      const seen = await recording(mode);

      // Act
      await fetch(`${gateway?.url}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await sign('user-1')}` },
        body: '{}',
      });
      const refused = await fetch(`${gateway?.url}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await sign('')}` },
        body: '{}',
      });

      // Assess
      const expected = sample(path);
      const [event] = seen.http ?? [];
      expect(event.requestContext.authorizer).toEqual(expected.requestContext.authorizer);
      expect(keysOf(event)).toEqual(
        expect.arrayContaining(['version', 'rawPath', 'requestContext']),
      );
      expect(event.version).toBe(expected.version);
      expect(refused.status).toBe(status);
      expect(seen.http).toHaveLength(1);
    },
  );

  it('WebSocket messages carry the authorizer context as API Gateway flattens it', async () => {
    // Prepare
    const seen = await recording('jwt');
    const ws = await connect(gateway?.wsUrl as string, await sign('user-1'));

    // Act
    ws.send('{}');
    await vi.waitFor(() => expect(seen.message).toHaveLength(1), { timeout: 10_000 });
    ws.close();

    // Assess
    const expected = sample('websocket/message-run.json').requestContext.authorizer;
    const [event] = seen.message ?? [];
    expect(event.requestContext.authorizer).toMatchObject({
      principalId: expected.principalId,
      principal: expected.principal,
    });
  });
});
