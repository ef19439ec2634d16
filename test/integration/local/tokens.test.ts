import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { http, useLocalStack } from './clients.js';
import { connect, untilTerminal } from './ws-client.js';

// The token rule over the real local stack (docs/protocol.md "Tokens"): `exp` required by both
// APIs and the stream URL, the header wins over `?token=`, which only the WebSocket handshake
// takes; the development token `npm start` prints expires.
const stack = useLocalStack();

/** A token signed with the stack's development secret, with or without `exp`. */
function sign(sub: string, exp: string | false): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuedAt();
  if (exp) jwt.setExpirationTime(exp);
  return jwt.sign(new TextEncoder().encode(process.env.JWT_SECRET));
}

async function streamRun(query: string, headers: Record<string, string>, sessionId: string) {
  const response = await fetch(`${stack.streamUrl}/runs${query}`, {
    method: 'POST',
    headers: { accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ agent: 'demo', sessionId, input: 'hi' }),
  });
  return { status: response.status, text: await response.text() };
}

describe('tokens', () => {
  it('the development token (the one `npm start` prints) expires, in about 12 hours', () => {
    // Act
    const claims = decodeJwt(stack.token);

    // Assess
    expect(claims.sub).toBe('developer');
    expect(typeof claims.exp).toBe('number');
    expect((claims.exp as number) - (claims.iat as number)).toBe(12 * 3600);
  });

  it('a token without exp is refused by the HTTP API, the stream URL and the WebSocket handshake', async () => {
    // Prepare
    const forever = await sign('alice', false);

    // Act
    const api = await fetch(`${stack.httpUrl}/agents`, {
      headers: { authorization: `Bearer ${forever}` },
    });
    const stream = await streamRun('', { authorization: `Bearer ${forever}` }, 'tok-1');
    const handshake = await connect(stack.wsUrl, forever).then(
      (ws) => {
        ws.close();
        return 'open';
      },
      (err: Error) => err.message,
    );

    // Assess
    expect(api.status).toBe(401);
    expect(stream.status).toBe(401);
    expect(JSON.parse(stream.text).code).toBe('unauthorized');
    expect(handshake).toBe('HTTP 403');
  });

  it('stream URL: the Authorization header wins over ?token=', async () => {
    // Prepare
    const alice = await sign('alice', '5m');
    const mallory = await sign('mallory', '5m');

    // Act
    const run = await streamRun(`?token=${mallory}`, { authorization: `Bearer ${alice}` }, 'tok-2');
    const asAlice = await http(stack, 'alice', 'GET', '/sessions/tok-2');
    const asMallory = await http(stack, 'mallory', 'GET', '/sessions/tok-2');

    // Assess
    expect(run.status).toBe(200);
    expect(asAlice.status).toBe(200);
    expect(asMallory.status).toBe(404);
  });

  it('stream URL: ?token= alone is refused with the rule in the message, and runs nothing', async () => {
    // Prepare
    const alice = await sign('alice', '5m');

    // Act
    const run = await streamRun(`?token=${alice}`, {}, 'tok-3');
    const session = await http(stack, 'alice', 'GET', '/sessions/tok-3');

    // Assess
    expect(run.status).toBe(401);
    expect(JSON.parse(run.text)).toMatchObject({ code: 'unauthorized' });
    expect(JSON.parse(run.text).message).toContain('only on the WebSocket handshake');
    expect(session.status).toBe(404);
  });

  it('WebSocket handshake: a header sent with ?token= wins', async () => {
    // Prepare
    const alice = await sign('alice', '5m');
    const mallory = await sign('mallory', '5m');
    const ws = new WebSocket(`${stack.wsUrl}?token=${mallory}`, {
      headers: { authorization: `Bearer ${alice}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });

    // Act
    const terminal = untilTerminal(ws);
    ws.send(
      JSON.stringify({
        action: 'run',
        requestId: 'tok-ws',
        agent: 'demo',
        sessionId: 'tok-4',
        input: 'hi',
      }),
    );
    await terminal;
    ws.close();
    const asAlice = await http(stack, 'alice', 'GET', '/sessions/tok-4');

    // Assess
    expect(asAlice.status).toBe(200);
  });
});
