import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createAuthorizerHandler } from '../../../lib/aws/handlers/authorizer.js';
import { httpPrincipalOf } from '../../../lib/aws/handlers/http-api.js';
import { principalOf } from '../../../lib/aws/handlers/ws-connection.js';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import { sampleEvent } from './sample.js';

// Every event shape the stack produces carries the principal where the fronts read it.
const SECRET = 'a-development-secret-of-32-bytes!';
const config = loadConfig({ AUTH_MODE: 'hs256', JWT_SECRET: SECRET });

function sign(sub: string | undefined): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m');
  if (sub !== undefined) jwt.setSubject(sub);
  return jwt.sign(new TextEncoder().encode(SECRET));
}

/** The HTTP API's Lambda authorizer event (payload 1.0), with this token. */
function httpAuthorizerEvent(token: string): any {
  const event = sampleEvent('http/authorizer.json');
  event.headers.authorization = `Bearer ${token}`;
  event.identitySource = `Bearer ${token}`;
  return event;
}

describe('the principal in every event shape', () => {
  it('reads the JWT authorizer claims of an HTTP API v2 event', () => {
    expect(httpPrincipalOf(sampleEvent('http/post-runs.json'))).toBe('user-1');
  });

  it('reads the Lambda authorizer context of an HTTP API v2 event, never a principalId', () => {
    // Prepare
    const event = sampleEvent('http/post-runs-lambda-authorizer.json');
    const withPrincipalIdOnly = structuredClone(event);
    withPrincipalIdOnly.requestContext.authorizer = { lambda: { principalId: 'user-1' } };

    // Act + Assess
    expect(httpPrincipalOf(event)).toBe('user-1');
    expect(httpPrincipalOf(withPrincipalIdOnly)).toBeUndefined();
  });

  it('reads the WebSocket authorizer context flattened on a message event', () => {
    expect(principalOf(sampleEvent('websocket/message-run.json'))).toBe('user-1');
  });

  it('gets from the HTTP Lambda authorizer the context the http function reads', async () => {
    // Prepare
    const authorize = createAuthorizerHandler(config);

    // Act: API Gateway passes the returned context under requestContext.authorizer.lambda.
    const result = await authorize(httpAuthorizerEvent(await sign('alice')));
    const event = sampleEvent('http/post-runs-lambda-authorizer.json');
    event.requestContext.authorizer = { lambda: result.context };

    // Assess
    expect(result.policyDocument.Statement[0]).toMatchObject({
      Effect: 'Allow',
      Resource: sampleEvent('http/authorizer.json').methodArn,
    });
    expect(httpPrincipalOf(event)).toBe('alice');
  });

  it('accepts a sub of 1,024 characters', async () => {
    const authorize = createAuthorizerHandler(config);
    const result = await authorize(httpAuthorizerEvent(await sign('a'.repeat(1024))));
    expect(result.principalId).toHaveLength(1024);
  });

  it.each([
    ['an empty sub', ''],
    ['a sub over 1,024 characters', 'a'.repeat(1025)],
    ['a sub with a control character', 'alice\nadmin'],
    ['no sub', undefined],
  ])('refuses %s, which the front door and the worker would refuse', async (_label, sub) => {
    // Prepare
    const authorize = createAuthorizerHandler(config);
    const token = await sign(sub);

    // Act + Assess: on both APIs, a Deny policy (API Gateway's 403).
    const denied = { policyDocument: { Statement: [{ Effect: 'Deny' }] } };
    expect(await authorize(httpAuthorizerEvent(token))).toMatchObject(denied);
    const ws = sampleEvent('websocket/authorizer.json');
    ws.queryStringParameters = { token };
    expect(await authorize(ws)).toMatchObject(denied);
  });
});
