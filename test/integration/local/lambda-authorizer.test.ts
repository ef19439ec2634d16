import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { http } from './clients.js';

// The HTTP API as deployed with `auth: hs256`: the authorizer function (payload 1.0) in front,
// its returned context reaching the http function under requestContext.authorizer.lambda.
let stack: LocalStack;

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TABLE_NAME', 'DYNAMODB_ENDPOINT']) {
    delete process.env[key];
  }
  stack = await startLocalStack({ httpAuth: 'lambda' });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

describe('HTTP API behind the Lambda authorizer', () => {
  it('owns a session by the token’s sub: another principal gets not-found', async () => {
    // Act
    const run = await http(stack, 'alice', 'POST', '/runs', {
      agent: 'demo',
      sessionId: 'lam-1',
      input: 'hello',
    });
    const own = await http(stack, 'alice', 'GET', '/sessions/lam-1');
    const other = await http(stack, 'bob', 'GET', '/sessions/lam-1');

    // Assess
    expect(run).toMatchObject({ status: 200, body: { status: 'completed' } });
    expect(own).toMatchObject({ status: 200, body: { sessionId: 'lam-1', turns: 1 } });
    expect(other).toMatchObject({ status: 404, body: { code: 'not-found' } });
  });

  it('refuses a token whose sub is empty or over 1,024 characters', async () => {
    for (const sub of ['', 'y'.repeat(1025)]) {
      // The authorizer's Deny: API Gateway answers 403.
      expect((await http(stack, sub, 'GET', '/agents')).status).toBe(403);
    }
  });
});
