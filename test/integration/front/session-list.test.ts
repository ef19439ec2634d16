import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../../lib/aws/handlers/http-api.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { deployment, sampleEvent } from '../aws/setup.js';

// GET /sessions over the real HTTP handler and DynamoDB (dynalite), tried as an attacker would.
const server = useScriptedModelServer();

async function api() {
  const deployed = await deployment(server);
  const handler = createHttpHandler(async () => deployed);
  return async (event: unknown) => {
    const result = await handler(event as never);
    return { status: result.statusCode, body: JSON.parse(String(result.body)) };
  };
}

function get(path: string, sub: string | undefined, query: Record<string, string> = {}) {
  const event = sampleEvent('http/get-session.json');
  event.rawPath = path;
  event.requestContext.http.path = path;
  event.queryStringParameters = query;
  if (sub === undefined) delete event.requestContext.authorizer;
  else event.requestContext.authorizer.jwt.claims.sub = sub;
  return event;
}

function run(sub: string, sessionId: string) {
  server.push({ text: `hello ${sessionId}` });
  const event = sampleEvent('http/post-runs.json');
  event.body = JSON.stringify({ agent: 'payer', sessionId, input: 'hi' });
  event.requestContext.authorizer.jwt.claims.sub = sub;
  return event;
}

function clear(sub: string, sessionId: string) {
  const event = get(`/sessions/${sessionId}`, sub);
  event.requestContext.http.method = 'DELETE';
  return event;
}

const ids = (body: { sessions: { sessionId: string }[] }) => body.sessions.map((s) => s.sessionId);

describe('GET /sessions', () => {
  it("lists the caller's own sessions newest first, pages them, and never another's", async () => {
    // Prepare: alice has three sessions, bob one.
    const call = await api();
    for (const id of ['list-a1', 'list-a2', 'list-a3']) {
      expect((await call(run('alice', id))).status).toBe(200);
    }
    expect((await call(run('bob', 'list-b1'))).status).toBe(200);

    // Act
    const all = await call(get('/sessions', 'alice'));
    const first = await call(get('/sessions', 'alice', { limit: '2' }));
    const second = await call(get('/sessions', 'alice', { limit: '2', cursor: first.body.next }));
    const bobs = await call(get('/sessions', 'bob'));
    const carol = await call(get('/sessions', 'carol'));

    // Assess
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual(['list-a3', 'list-a2', 'list-a1']);
    expect(all.body.sessions[0]).toMatchObject({ agent: 'payer', turns: 1, paused: 0 });
    expect(all.body.next).toBeUndefined();
    expect(ids(first.body)).toEqual(['list-a3', 'list-a2']);
    expect(typeof first.body.next).toBe('string');
    expect(ids(second.body)).toEqual(['list-a1']);
    expect(ids(bobs.body)).toEqual(['list-b1']);
    expect(carol.body).toEqual({ sessions: [] });
  });

  it('leaves out a cleared session, and one its id now names for another principal', async () => {
    // Prepare
    const call = await api();
    await call(run('alice', 'gone-1'));
    await call(run('alice', 'kept-1'));

    // Act: alice clears gone-1; mallory then takes the free id.
    expect((await call(clear('alice', 'gone-1'))).status).toBe(200);
    expect((await call(run('mallory', 'gone-1'))).status).toBe(200);
    const alice = await call(get('/sessions', 'alice'));
    const mallory = await call(get('/sessions', 'mallory'));

    // Assess
    expect(ids(alice.body)).toEqual(['kept-1']);
    expect(ids(mallory.body)).toEqual(['gone-1']);
  });

  it('refuses no token, and bad limits and cursors with invalid-cursor, reading nothing', async () => {
    // Prepare
    const call = await api();
    await call(run('bob', 'secret-b1'));
    const bobs = await call(get('/sessions', 'bob', { limit: '1' }));
    const forged = Buffer.from(JSON.stringify([Date.now() + 60_000, 'secret-b1'])).toString(
      'base64url',
    );

    // Act
    const anonymous = await call(get('/sessions', undefined));
    const bad = await Promise.all(
      (
        [
          { limit: '0' },
          { limit: '101' },
          { limit: 'ten' },
          { limit: '-1' },
          { cursor: 'not a cursor!' },
          { cursor: Buffer.from('{"pk":"SESSION#!owner#bob"}').toString('base64url') },
          { cursor: Buffer.from('[1,"../x"]').toString('base64url') },
          { cursor: Buffer.from('[-5,"a"]').toString('base64url') },
          { cursor: 'A'.repeat(500) },
        ] as Record<string, string>[]
      ).map((query) => call(get('/sessions', 'alice', query))),
    );
    // Bob's own cursor, or one forged from his session's position, only moves in alice's index.
    const stolen = await call(get('/sessions', 'alice', { cursor: bobs.body.next ?? forged }));
    const guessed = await call(get('/sessions', 'alice', { cursor: forged }));

    // Assess
    expect(anonymous).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    for (const answer of bad) {
      expect(answer).toMatchObject({ status: 400, body: { code: 'invalid-cursor' } });
    }
    expect(stolen).toEqual({ status: 200, body: { sessions: [] } });
    expect(guessed).toEqual({ status: 200, body: { sessions: [] } });
  });
});
