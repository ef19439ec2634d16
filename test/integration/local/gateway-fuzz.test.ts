import { randomBytes } from 'node:crypto';
import { type Socket, connect as tcp } from 'node:net';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startGateway } from '../../../lib/local/gateway.js';
import { http, useLocalStack } from './clients.js';
import { connect, untilTerminal } from './ws-client.js';

// The local gateway and Function URL survive any client (resets at every point of a handshake or
// request, invalid frames, garbage, clients that stop reading or go silent), and the stack keeps
// serving normal runs after the fuzz. A crash of the gateway is an unhandled error, which fails
// this file.
const stack = useLocalStack();

const portOf = (url: string) => Number(new URL(url).port);

/** A raw TCP client: resolves once connected. */
function open(url: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcp(portOf(url), '127.0.0.1', () => resolve(socket));
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

/** Resolves when the server ends or resets the socket (or after it answered something). */
function settled(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    socket.on('data', (d) => {
      got += d.toString('latin1');
    });
    socket.once('close', () => resolve(got));
  });
}

const upgrade = (path: string, extra = '') =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
  `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`;

/** A masked client frame (RFC 6455) with any opcode and payload, valid or not. */
function frame(opcode: number, payload: Buffer, fin = true): Buffer {
  const mask = randomBytes(4);
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | length])
      : Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | 126, length >> 8, length & 0xff]);
  const masked = Buffer.from(payload.map((b, i) => b ^ (mask[i % 4] as number)));
  return Buffer.concat([header, mask, masked]);
}

/** Opens an upgraded raw socket as the principal (the 101 read off). */
async function upgraded(principal: string): Promise<Socket> {
  const socket = await open(stack.wsUrl);
  const token = await stack.tokenFor(principal);
  socket.write(upgrade(`/?token=${token}`));
  await new Promise<void>((resolve, reject) => {
    socket.once('data', (d) => (String(d).startsWith('HTTP/1.1 101') ? resolve() : reject(d)));
  });
  return socket;
}

describe('the local gateway keeps serving after a fuzz of bad clients', () => {
  it('an upgrade without a token, then a TCP reset, 20 times (the crash of issue 26)', async () => {
    for (let i = 0; i < 20; i++) {
      // Act
      const socket = await open(stack.wsUrl);
      const closed = settled(socket);
      socket.write(upgrade('/'));
      if (i % 2 === 0) socket.resetAndDestroy();
      else setImmediate(() => socket.resetAndDestroy());
      await closed;
    }

    // Assess
    expect((await http(stack, 'fuzz', 'GET', '/agents')).status).toBe(200);
  });

  it('resets at random points of handshakes (no token, a bad one, a good one) and of HTTP requests', async () => {
    const good = await stack.tokenFor('fuzz');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('ws-none', 'ws-bad', 'ws-good', 'http', 'stream'),
        fc.nat({ max: 400 }),
        fc.boolean(),
        async (kind, cut, reset) => {
          // Prepare
          const token = kind === 'ws-good' ? good : 'not.a.jwt';
          const text =
            kind === 'http' || kind === 'stream'
              ? `POST /runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${good}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: 500\r\n\r\n{"agent":"demo","input":"hi"`
              : upgrade(kind === 'ws-none' ? '/' : `/?token=${token}`);
          const socket = await open(kind === 'stream' ? stack.streamUrl : stack.wsUrl);
          const closed = settled(socket);

          // Act: part of the request, then a reset or a half-close
          socket.write(text.slice(0, cut));
          if (reset) socket.resetAndDestroy();
          else socket.end();
          await closed;
        },
      ),
      { numRuns: 60 },
    );

    // Assess
    expect((await http(stack, 'fuzz', 'GET', '/agents')).status).toBe(200);
  });

  it('a text frame of invalid UTF-8 closes that connection with 1007; others go on', async () => {
    // Prepare
    const bystander = await connect(stack.wsUrl, await stack.tokenFor('bystander'));
    const ws = await connect(stack.wsUrl, await stack.tokenFor('fuzz'));
    ws.on('error', () => undefined);
    const closed = new Promise<number>((resolve) => ws.once('close', resolve));

    // Act
    ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    const code = await closed;
    bystander.send(
      JSON.stringify({ action: 'run', requestId: 'by-1', agent: 'demo', input: 'hi' }),
    );
    const messages = await untilTerminal(bystander);
    bystander.close();

    // Assess
    expect(code).toBe(1007);
    expect(messages.at(-1).events.at(-1).type).toBe('run-finished');
  });

  it('a binary frame of invalid UTF-8 is answered invalid-utf8, and the connection stays', async () => {
    // Prepare
    const ws = await connect(stack.wsUrl, await stack.tokenFor('fuzz'));
    const answers: any[] = [];
    const next = () =>
      new Promise<any>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))));

    // Act
    ws.send(
      Buffer.from('{"action":"run","requestId":"b1","agent":"demo","input":"\xff"}', 'latin1'),
    );
    answers.push(await next());
    ws.send(Buffer.from('{"action":"subscribe","sessionId":"s-bin"}'));
    ws.send(JSON.stringify({ action: 'unsubscribe', requestId: 'u1', sessionId: 'a b' }));
    answers.push(await next());
    ws.close();

    // Assess
    expect(answers[0]).toMatchObject({ type: 'error', code: 'invalid-utf8' });
    expect(answers[1]).toMatchObject({ type: 'error', code: 'invalid-message', requestId: 'u1' });
  });

  it('a frame over 2 MiB closes with 1009; garbage frames and bad opcodes close that socket only', async () => {
    // Prepare
    const ws = await connect(stack.wsUrl, await stack.tokenFor('fuzz'));
    ws.on('error', () => undefined);
    const big = new Promise<number>((resolve) => ws.once('close', resolve));

    // Act
    ws.send('x'.repeat(3 * 1024 * 1024));
    const bigCode = await big;
    const garbage: Buffer[] = [
      Buffer.concat([Buffer.from([0xff]), randomBytes(63)]), // RSV bits set
      frame(0x3, Buffer.from('reserved opcode')),
      frame(0x9, Buffer.alloc(200)), // a ping over 125 bytes
      frame(0x1, Buffer.from('{"a":'), false), // a fragment, then a new text frame
      Buffer.from([0x81, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f]), // unmasked client frame
    ];
    const closes: string[] = [];
    for (const bytes of garbage) {
      const socket = await upgraded('fuzz');
      const closed = settled(socket);
      socket.write(bytes);
      if (bytes[0] === 0x01) socket.write(frame(0x1, Buffer.from('{}')));
      closes.push(await closed);
    }

    // Assess
    expect(bigCode).toBe(1009);
    expect(closes).toHaveLength(garbage.length);
    expect((await http(stack, 'fuzz', 'GET', '/agents')).status).toBe(200);
  });

  it('malformed HTTP (a bad request line, bad headers, a lying Content-Length) gets 400 or a close', async () => {
    // Prepare
    const requests = [
      'GARBAGE\r\n\r\n',
      'GET / HTTP/1.1\r\nBad Header\r\n\r\n',
      'POST /runs HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nhello',
      `${randomBytes(300).toString('latin1')}\r\n\r\n`,
    ];

    // Act
    const answers: string[] = [];
    for (const url of [stack.httpUrl, stack.streamUrl]) {
      for (const text of requests) {
        const socket = await open(url);
        const closed = settled(socket);
        socket.write(Buffer.from(text, 'latin1'));
        answers.push(await closed);
      }
    }

    // Assess
    for (const answer of answers)
      expect(answer === '' || answer.startsWith('HTTP/1.1 400')).toBe(true);
  });

  it('after all of it, a WebSocket run, an HTTP run and a stream run still work', async () => {
    // Act
    const ws = await connect(stack.wsUrl, await stack.tokenFor('fuzz'));
    ws.send(JSON.stringify({ action: 'run', requestId: 'after-1', agent: 'demo', input: 'hi' }));
    const messages = await untilTerminal(ws);
    ws.close();
    const sync = await http(stack, 'fuzz', 'POST', '/runs', { agent: 'demo', input: 'hi' });
    const stream = await fetch(`${stack.streamUrl}/runs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await stack.tokenFor('fuzz')}`,
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ agent: 'demo', input: 'hi' }),
    });

    // Assess
    expect(messages.at(-1).events.at(-1).type).toBe('run-finished');
    expect(sync).toMatchObject({ status: 200, body: { status: 'completed' } });
    expect(await stream.text()).toContain('run-finished');
  });
});

describe('clients that go silent or stop reading (a gateway with recording handlers)', () => {
  const calls: { route: string; connectionId: string }[] = [];
  const record = (route: string) => async (event: any) => {
    calls.push({ route, connectionId: event.requestContext?.connectionId });
    return { statusCode: 200 };
  };
  const allow = async () => ({
    principalId: 'p',
    policyDocument: { Statement: [{ Effect: 'Allow' }] },
    context: { principal: 'p' },
  });
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  afterAll(() => gateway?.close());

  it('a half-open client (silent, never closing) is dropped after the idle timeout, with $disconnect', async () => {
    // Prepare
    gateway = await startGateway(
      {
        http: async () => ({ statusCode: 200 }),
        authorizer: allow,
        connect: record('connect'),
        disconnect: record('disconnect'),
        message: record('message'),
      },
      { secret: 'x'.repeat(32), context: () => ({}), idleTimeoutMs: 300 },
    );
    const ws = new WebSocket(`${gateway.wsUrl}?token=t`, { autoPong: false });
    await new Promise((resolve) => ws.once('open', resolve));

    // Act: the client says nothing, as one whose network vanished
    const code = await new Promise<number>((resolve) => ws.once('close', resolve));
    await expect.poll(() => calls.filter((c) => c.route === 'disconnect').length).toBe(1);

    // Assess
    expect(code).toBe(1006);
    const [connected] = calls.filter((c) => c.route === 'connect');
    expect(calls.find((c) => c.route === 'disconnect')?.connectionId).toBe(connected?.connectionId);
  });

  it('a client that stops reading is dropped once its unsent backlog passes 4 MiB: 410 after', async () => {
    // Prepare
    calls.length = 0;
    const socket = await open(gateway.wsUrl);
    socket.write(upgrade('/?token=t'));
    await new Promise((resolve) => socket.once('data', resolve));
    socket.pause(); // reads nothing more
    await expect.poll(() => calls.some((c) => c.route === 'connect')).toBe(true);
    const id = calls.find((c) => c.route === 'connect')?.connectionId as string;
    const chunk = 'y'.repeat(512 * 1024);

    // Act: post until the gateway gives up on it
    const statuses: number[] = [];
    for (let i = 0; i < 400 && statuses.at(-1) !== 410; i++) {
      const response = await fetch(`${gateway.connectionsUrl}/@connections/${id}`, {
        method: 'POST',
        body: chunk,
      });
      statuses.push(response.status);
    }
    socket.destroy();

    // Assess
    expect(statuses.at(-1)).toBe(410);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    await expect.poll(() => calls.some((c) => c.route === 'disconnect')).toBe(true);
  });
});
