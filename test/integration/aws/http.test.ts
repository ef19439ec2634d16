import { beforeEach, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../../lib/aws/handlers/http-api.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { deployment, payments, sampleEvent } from './setup.js';

const server = useScriptedModelServer();
beforeEach(() => {
  payments.length = 0;
});

async function api(env: Record<string, string> = {}) {
  const deployed = await deployment(server, env);
  const handler = createHttpHandler(async () => deployed);
  return async (event: any) => {
    const result = await handler(event);
    return { status: result.statusCode, body: JSON.parse(String(result.body)) };
  };
}

const payCall = { id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 10 } };
const runEvent = (body: unknown, sub = 'user-1') => {
  const event = sampleEvent('http/post-runs.json');
  event.body = JSON.stringify(body);
  event.requestContext.authorizer.jwt.claims.sub = sub;
  return event;
};

describe('HTTP function', () => {
  it('runs synchronously, pauses, shows the paused run, takes decisions and shows the session', async () => {
    // Prepare
    const call = await api();
    server.push({ toolCalls: [payCall] }, { text: 'Paid Bob.' });

    // Act
    const paused = await call(
      runEvent({ agent: 'payer', sessionId: 'http-session-1', input: 'Pay Bob 10' }),
    );
    const runId = paused.body.runId;
    const status = await call(sampleEvent('http/get-run.json', { RUN_ID: runId }));
    const done = await call(
      sampleEvent('http/post-decisions.json', { RUN_ID: runId, CALL_ID: 'call_pay_1' }),
    );
    const session = await call(sampleEvent('http/get-session.json'));

    // Assess
    expect(paused).toMatchObject({
      status: 200,
      body: { status: 'paused', interruptions: [{ id: 'call_pay_1' }] },
    });
    expect(status).toMatchObject({ status: 200, body: { status: 'paused', runId } });
    expect(done).toMatchObject({ status: 200, body: { status: 'completed', text: 'Paid Bob.' } });
    expect(payments).toHaveLength(1);
    expect(session).toMatchObject({
      status: 200,
      body: { sessionId: 'http-session-1', turns: 1, paused: [] },
    });
  });

  it('lists agents and answers health', async () => {
    const call = await api();
    expect(await call(sampleEvent('http/get-agents.json'))).toMatchObject({
      status: 200,
      body: {
        agents: [
          { name: 'payer', capabilities: { humanInTheLoop: true } },
          { name: 'writer' },
          { name: 'spec-writer' },
          { name: 'approving-writer' },
        ],
      },
    });
    expect(await call(sampleEvent('http/get-health.json'))).toEqual({
      status: 200,
      body: { status: 'ok' },
    });
  });

  it.each([
    ['malformed JSON', '{"agent":', 400, 'bad-json'],
    ['a missing field', JSON.stringify({ sessionId: 'x', input: 'hi' }), 400, 'invalid-message'],
    ['an empty input', JSON.stringify({ agent: 'payer', input: '' }), 400, 'invalid-message'],
    ['an unknown agent', JSON.stringify({ agent: 'nobody', input: 'hi' }), 404, 'agent-not-found'],
  ])(
    'answers %s with %i and a JSON error body, running nothing',
    async (_label, body, status, code) => {
      // Prepare
      const call = await api();
      const event = sampleEvent('http/post-runs.json');
      event.body = body;

      // Act
      const result = await call(event);

      // Assess
      expect(result).toMatchObject({ status, body: { type: 'error', code } });
      expect(typeof result.body.message).toBe('string');
      expect(server.requests).toHaveLength(0);
    },
  );

  it('answers another principal’s session as not found, and an unknown route with 404', async () => {
    // Prepare
    const call = await api();
    server.push({ text: 'Hi Alice.' });
    await call(runEvent({ agent: 'payer', sessionId: 's-alice', input: 'Hi' }, 'alice'));

    // Act
    const other = await call(
      runEvent({ agent: 'payer', sessionId: 's-alice', input: 'Hi' }, 'mallory'),
    );
    const route = await call({ ...sampleEvent('http/get-health.json'), rawPath: '/nope' });
    const malformed = await call({
      ...sampleEvent('http/get-health.json'),
      rawPath: '/sessions/%E0',
    });

    // Assess
    // The same answer as for a session that does not exist: mallory learns nothing.
    expect(other).toMatchObject({ status: 404, body: { code: 'not-found' } });
    expect(route).toMatchObject({ status: 404, body: { code: 'not-found' } });
    expect(malformed).toMatchObject({ status: 400, body: { code: 'invalid-request' } });
  });

  it('ends a synchronous run that outlives its budget with 504 and stores nothing', async () => {
    // Prepare
    const call = await api({ SYNC_RUN_TIMEOUT_MS: '300' });
    server.push({ text: 'Too late.', delayMs: 3_000 });

    // Act
    const result = await call(runEvent({ agent: 'payer', sessionId: 's-slow', input: 'Hi' }));
    const session = await call(
      sampleEvent('http/get-session.json', { 'http-session-1': 's-slow' }),
    );

    // Assess
    expect(result).toMatchObject({ status: 504, body: { code: 'run-timeout' } });
    // The caller's session was claimed on accept; the turn itself stored nothing.
    expect(session).toMatchObject({ status: 200, body: { sessionId: 's-slow', turns: 0 } });
  });
});
