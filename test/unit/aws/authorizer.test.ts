import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createAuthorizerHandler } from '../../../lib/aws/handlers/authorizer.js';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import { sampleEvent } from './sample.js';

const SECRET = 'a-development-secret-of-32-bytes!';
const config = loadConfig({ AUTH_MODE: 'hs256', JWT_SECRET: SECRET });
const key = new TextEncoder().encode(SECRET);

function sign(claims: Record<string, unknown>, expires = '5m', secret = key): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(expires)
    .sign(secret);
}

function event(token?: string, header?: string): any {
  const sample = sampleEvent('websocket/authorizer.json');
  sample.queryStringParameters = token === undefined ? {} : { token };
  if (header) sample.headers.Authorization = header;
  return sample;
}

describe('WebSocket authorizer (HS256)', () => {
  it('lets a valid token in with principalId = sub', async () => {
    // Prepare
    const authorize = createAuthorizerHandler(config);
    const token = await sign({ sub: 'alice' });

    // Act
    const result = await authorize(event(token));

    // Assess
    expect(result).toMatchObject({
      principalId: 'alice',
      context: { principal: 'alice' },
      policyDocument: {
        Statement: [
          {
            Effect: 'Allow',
            Action: 'execute-api:Invoke',
            Resource: event().methodArn,
          },
        ],
      },
    });
  });

  it('reads a bearer token from the Authorization header', async () => {
    // Prepare
    const authorize = createAuthorizerHandler(config);
    const token = await sign({ sub: 'bob' });

    // Act
    const result = await authorize(event(undefined, `Bearer ${token}`));

    // Assess
    expect(result.principalId).toBe('bob');
  });

  it.each([
    ['a missing token', async () => undefined],
    ['a malformed token', async () => 'not.a.jwt'],
    ['an expired token', () => sign({ sub: 'alice' }, '-1m')],
    [
      'a token signed with another secret',
      () =>
        sign({ sub: 'alice' }, '5m', new TextEncoder().encode('another-secret-of-32-bytes-long!!')),
    ],
    ['a token without a subject', () => sign({})],
  ])('refuses %s', async (_label, token) => {
    // Prepare
    const authorize = createAuthorizerHandler(config);

    // Act
    const refused = event(await token());
    const lines = await emitted(() => authorize(refused));

    // Assess: a Deny policy (403), never a throw (a Lambda error the error alarm would count),
    // and one AuthorizerRejections EMF line.
    expect(lines.result).toMatchObject({
      principalId: 'rejected',
      policyDocument: { Statement: [{ Effect: 'Deny', Resource: event().methodArn }] },
    });
    expect(lines.result.context).toBeUndefined();
    const emf = lines.out.filter((line) => line.AuthorizerRejections === 1);
    expect(emf).toHaveLength(1);
    expect(emf[0]._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'AgentKernel',
      Metrics: [{ Name: 'AuthorizerRejections', Unit: 'Count' }],
    });
  });

  it('counts nothing when it lets a token in', async () => {
    const authorize = createAuthorizerHandler(config);
    const token = await sign({ sub: 'alice' });
    const lines = await emitted(() => authorize(event(token)));
    expect(lines.result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    expect(lines.out.filter((line) => 'AuthorizerRejections' in line)).toEqual([]);
  });
});

/** What `fn` wrote to stdout, one JSON object a line (the EMF lines Lambda ships to CloudWatch). */
async function emitted<T>(fn: () => Promise<T>): Promise<{ result: T; out: any[] }> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => {
    chunks.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    const result = await fn();
    return {
      result,
      out: chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    };
  } finally {
    process.stdout.write = write;
  }
}
