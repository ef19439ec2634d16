import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../../lib/aws/handlers/http-api.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { deployment, payments, sampleEvent } from '../aws/setup.js';

// GET /sessions/{id}/turns over the real HTTP handler and DynamoDB (dynalite), as an attacker too.
const server = useScriptedModelServer();
const payCall = { id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 10 } };

async function api() {
  const deployed = await deployment(server);
  const handler = createHttpHandler(async () => deployed);
  return async (event: unknown) => {
    const result = await handler(event as never);
    return { status: result.statusCode, body: JSON.parse(String(result.body)) };
  };
}

function request(method: string, path: string, sub?: string, query: Record<string, string> = {}) {
  const event = sampleEvent('http/get-session.json');
  event.rawPath = path;
  event.requestContext.http = { ...event.requestContext.http, method, path };
  event.queryStringParameters = query;
  if (sub === undefined) delete event.requestContext.authorizer;
  else event.requestContext.authorizer.jwt.claims.sub = sub;
  return event;
}

function run(sub: string, sessionId: string, input: string) {
  const event = request('POST', '/runs', sub);
  event.body = JSON.stringify({ agent: 'payer', sessionId, input });
  return event;
}

function decide(sub: string, sessionId: string, runId: string) {
  const event = request('POST', `/sessions/${sessionId}/runs/${runId}/decisions`, sub);
  event.body = JSON.stringify({ decisions: [{ id: 'call_pay_1', status: 'approved' }] });
  return event;
}

describe('GET /sessions/{id}/turns', () => {
  it("lists the owner's turns oldest first with input and outcome, paged; nobody else's", async () => {
    // Prepare: a plain turn, then a paused one decided.
    const call = await api();
    payments.length = 0;
    server.push({ text: 'Hello there.' });
    await call(run('alice', 'turns-1', 'hi'));
    server.push({ toolCalls: [payCall] }, { text: 'Paid Bob.' });
    const paused = await call(run('alice', 'turns-1', 'Pay Bob 10'));
    expect(paused.body.status).toBe('paused');
    const pausedTurns = await call(request('GET', '/sessions/turns-1/turns', 'alice'));
    await call(decide('alice', 'turns-1', paused.body.runId));

    // Act
    const all = await call(request('GET', '/sessions/turns-1/turns', 'alice'));
    const first = await call(request('GET', '/sessions/turns-1/turns', 'alice', { limit: '1' }));
    const cursor = first.body.next;
    const second = await call(
      request('GET', '/sessions/turns-1/turns', 'alice', { limit: '1', cursor }),
    );
    const bob = await call(request('GET', '/sessions/turns-1/turns', 'bob'));
    const anonymous = await call(request('GET', '/sessions/turns-1/turns'));
    const guessed = await call(request('GET', '/sessions/turns-404/turns', 'alice'));
    const badCursor = await call(
      request('GET', '/sessions/turns-1/turns', 'alice', { cursor: 'bm90LWEtY3Vyc29y' }),
    );
    const badId = await call(request('GET', '/sessions/bad%20id/turns', 'alice'));

    // Assess
    expect(pausedTurns.body.turns[1]).toMatchObject({
      input: 'Pay Bob 10',
      status: 'paused',
      reply: { interruptions: [{ id: 'call_pay_1', arguments: { to: 'bob', amount: 10 } }] },
    });
    expect(all.status).toBe(200);
    expect(all.body.turns.map((t: { input: unknown }) => t.input)).toEqual(['hi', 'Pay Bob 10']);
    expect(all.body.turns[0]).toMatchObject({
      status: 'completed',
      reply: { text: 'Hello there.' },
    });
    expect(all.body.turns[1]).toMatchObject({ status: 'completed', reply: { text: 'Paid Bob.' } });
    expect(all.body.turns[1].owner).toBeUndefined();
    expect(all.body.next).toBeUndefined();
    expect(first.body.turns.map((t: { input: unknown }) => t.input)).toEqual(['hi']);
    expect(second.body.turns.map((t: { input: unknown }) => t.input)).toEqual(['Pay Bob 10']);
    expect(second.body.next).toBeUndefined();
    expect(bob).toMatchObject({ status: 404, body: { code: 'not-found' } });
    expect(guessed).toMatchObject({ status: 404, body: { code: 'not-found' } });
    expect(bob.body.message).toBe(guessed.body.message.replace('turns-404', 'turns-1'));
    expect(anonymous).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    expect(badCursor).toMatchObject({ status: 400, body: { code: 'invalid-cursor' } });
    expect(badId).toMatchObject({ status: 400, body: { code: 'invalid-request' } });
    expect(payments).toHaveLength(1);
  });

  it('shows none of the turns of before a clear, to the next owner of the id', async () => {
    // Prepare
    const call = await api();
    server.push({ text: 'Secret answer.' });
    await call(run('alice', 'turns-2', 'my secret'));
    await call(request('DELETE', '/sessions/turns-2', 'alice'));

    // Act: mallory takes the id and asks for its turns.
    server.push({ text: 'Hi mallory.' });
    await call(run('mallory', 'turns-2', 'anything here?'));
    const turns = await call(request('GET', '/sessions/turns-2/turns', 'mallory'));

    // Assess
    expect(turns.status).toBe(200);
    expect(turns.body.turns.map((t: { input: unknown }) => t.input)).toEqual(['anything here?']);
    expect(JSON.stringify(turns.body)).not.toContain('secret');
  });
});
