import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SocketPoster } from '../../../lib/tracing/otlp-socket.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A node:http collector on 127.0.0.1: each request's body, and the connections it saw. */
async function collector(answer: (req: IncomingMessage, res: ServerResponse, n: number) => void) {
  const bodies: string[] = [];
  const sockets: Socket[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      answer(req, res, bodies.length);
    });
  });
  server.on('connection', (socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`);
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url, bodies, sockets };
}

/** A TCP server that answers each connection's first bytes with `reply`, as raw bytes. */
async function rawServer(reply: (socket: Socket, request: string) => void) {
  const requests: string[] = [];
  const server = createTcpServer((socket) => {
    socket.once('data', (data) => {
      requests.push(data.toString('latin1'));
      reply(socket, data.toString('latin1'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port, requests };
}

function poster(url: URL | string, headers: Record<string, string> = {}, timeoutMs = 10_000) {
  const out = new SocketPoster(new URL(url), headers, timeoutMs);
  closers.push(async () => out.close());
  return out;
}

describe('SocketPoster against a node:http collector', () => {
  it('sends every POST on one kept-alive socket', async () => {
    // Prepare
    const c = await collector((_req, res) => res.writeHead(200).end('{}'));
    const target = poster(c.url);

    // Act
    const answers = [await target.post('{"a":1}'), await target.post('{"b":"é"}')];
    answers.push(await target.post('{"c":3}'));

    // Assess: three answers, three bodies as sent (UTF-8), one connection.
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(c.bodies).toEqual(['{"a":1}', '{"b":"é"}', '{"c":3}']);
    expect(c.sockets).toHaveLength(1);
  });

  it('opens a new socket after an answer with Connection: close', async () => {
    // Prepare
    const c = await collector((_req, res) => res.writeHead(200, { Connection: 'close' }).end());
    const target = poster(c.url);

    // Act
    const first = await target.post('1');
    const second = await target.post('2');

    // Assess
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(c.bodies).toEqual(['1', '2']);
    expect(c.sockets).toHaveLength(2);
  });

  it('reconnects when the collector closed the idle socket', async () => {
    // Prepare: the collector ends the connection after its first answer.
    const c = await collector((req, res) => {
      res.writeHead(200).end();
      res.on('finish', () => req.socket.end());
    });
    const target = poster(c.url);
    await target.post('1');
    await once(c.sockets[0] as Socket, 'close');

    // Act
    const second = await target.post('2');

    // Assess: each body arrived once, on a second connection.
    expect(second.status).toBe(200);
    expect(c.bodies).toEqual(['1', '2']);
    expect(c.sockets).toHaveLength(2);
  });

  it('reads a chunked refusal and keeps the socket for the next POST', async () => {
    // Prepare: no Content-Length, so node:http answers chunked.
    const c = await collector((_req, res, n) => {
      if (n > 1) return void res.writeHead(200).end();
      res.writeHead(503);
      res.write('over');
      res.end('loaded');
    });
    const target = poster(c.url);

    // Act
    const refused = await target.post('1');
    const accepted = await target.post('2');

    // Assess
    expect(refused).toEqual({ status: 503, why: 'overloaded' });
    expect(accepted.status).toBe(200);
    expect(c.sockets).toHaveLength(1);
  });

  it('gives up on a collector that never answers, within its timeout', async () => {
    // Prepare: the request is read, no answer comes.
    const c = await collector(() => undefined);
    const target = poster(c.url, {}, 100);

    // Act
    const failure = await target.post('hung').catch((error: Error) => error);

    // Assess
    expect(failure).toMatchObject({
      code: 'otlp-export-failed',
      message: 'OTLP export failed: no answer within 100 ms',
    });
    expect(c.bodies).toEqual(['hung']);
  });

  it('fails on a collector that is not there', async () => {
    // Prepare: a port nobody listens on any more.
    const c = await collector(() => undefined);
    await Promise.all(closers.splice(0).map((close) => close()));
    const target = poster(c.url);

    // Act
    const failure = await target.post('x').catch((error: NodeJS.ErrnoException) => error);

    // Assess
    expect((failure as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });
});

describe('SocketPoster on the wire', () => {
  it('writes one request: the head built once, the length, the body', async () => {
    // Prepare
    const s = await rawServer((socket) => socket.end('HTTP/1.1 204 No Content\r\n\r\n'));
    const target = poster(`http://user:p%40ss@127.0.0.1:${s.port}/v1/traces?x=1`, {
      'x-api-key': 'k1',
      'Content-Length': '999',
    });

    // Act
    const answer = await target.post('{"é":1}');

    // Assess: our framing wins over a configured Content-Length; the URL's user is Basic auth.
    expect(answer).toEqual({ status: 204, why: '' });
    expect(s.requests).toEqual([
      `POST /v1/traces?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nConnection: keep-alive\r\n` +
        `x-api-key: k1\r\nAuthorization: Basic ${Buffer.from('user:p@ss').toString('base64')}\r\n` +
        `Content-Length: 8\r\n\r\n${Buffer.from('{"é":1}').toString('latin1')}`,
    ]);
  });

  it('reads an answer sent a byte at a time after an interim 100', async () => {
    // Prepare
    const reply =
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 400 Bad Request\r\nContent-Length: 6\r\n\r\nschema';
    const s = await rawServer((socket) => {
      const write = (i: number) => {
        if (i < reply.length) socket.write(reply[i] as string, () => write(i + 1));
      };
      write(0);
    });

    // Act
    const answer = await poster(`http://127.0.0.1:${s.port}/`).post('{}');

    // Assess
    expect(answer).toEqual({ status: 400, why: 'schema' });
  });

  it('reads a body that ends with the connection', async () => {
    // Prepare
    const s = await rawServer((socket) => socket.end('HTTP/1.1 500 Oops\r\n\r\nit broke'));

    // Act
    const answer = await poster(`http://127.0.0.1:${s.port}/`).post('{}');

    // Assess
    expect(answer).toEqual({ status: 500, why: 'it broke' });
  });

  it('fails on an answer that is not HTTP, and on a socket closed before any answer', async () => {
    // Prepare
    const garbage = await rawServer((socket) => socket.write('SSH-2.0-OpenSSH\r\n\r\n'));
    const hangUp = await rawServer((socket) => socket.end());

    // Act
    const notHttp = await poster(`http://127.0.0.1:${garbage.port}/`)
      .post('{}')
      .catch((error: Error) => error);
    const closed = await poster(`http://127.0.0.1:${hangUp.port}/`)
      .post('{}')
      .catch((error: Error) => error);

    // Assess: a new socket that closes is not retried (it was never reused).
    expect(notHttp).toMatchObject({ code: 'otlp-export-failed' });
    expect(closed).toMatchObject({ message: 'socket hang up', code: 'ECONNRESET' });
    expect(hangUp.requests).toHaveLength(1);
  });

  it('refuses a header that would split the request, without showing its value', () => {
    expect(() => poster('http://127.0.0.1:1/', { 'x-key': 'secret\r\nX-Evil: 1' })).toThrow(
      'Invalid tracing configuration: OTLP header "x-key" is not a valid header',
    );
    expect(() => poster('http://127.0.0.1:1/', { 'bad name': 'v' })).toThrow('"bad name"');
  });
});
