import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { jwtVerify } from 'jose';
import { type WebSocket, WebSocketServer } from 'ws';
import { AgentKernelError } from '../core/errors.js';
import { httpEventOf, readBody } from './http-event.js';

type Handler = (event: any, context: any) => Promise<any>;

export interface GatewayHandlers {
  http: Handler;
  authorizer: Handler;
  connect: Handler;
  disconnect: Handler;
  message: Handler;
}

export interface Gateway {
  /** HTTP API base URL; the WebSocket API is the same origin with ws:// */
  readonly url: string;
  readonly wsUrl: string;
  /** The @connections management endpoint the real ApiGatewayManagementApiClient posts to. */
  readonly connectionsUrl: string;
  close(): Promise<void>;
}

const STAGE = 'local';
/** API Gateway closes a WebSocket idle this long (its documented 10 minutes). */
const IDLE_TIMEOUT_MS = 10 * 60 * 1000;
/** A frame larger than this closes the connection (1009) before anything reads it. */
const MAX_FRAME_BYTES = 2 * 1024 * 1024;
/** A client that reads nothing: past this much unsent, its connection is dropped (410 after). */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** The port the local stack was asked to listen on is taken: one line, with the way out. */
export class PortInUse extends AgentKernelError {
  /** Printed under the message by the commands (lib/local/cli.ts). */
  readonly hint: string;

  constructor(port: number) {
    super('port-in-use', `Port ${port} is in use (another \`npm start\`?).`);
    this.hint = `stop it, or pick another port: PORT=${port + 1} npm start`;
  }
}

/** The deployed HTTP API's CORS (infra/constructs/http-api.ts, `corsOrigins` default `*`). */
const CORS = {
  methods: 'GET,POST,DELETE,OPTIONS',
  headers: 'authorization,content-type,idempotency-key',
  maxAge: String(3600),
};

/** The allowed origin to answer `origin` with, or undefined when it gets no CORS headers. */
function allowedOrigin(origin: string | undefined, allowed: readonly string[]): string | undefined {
  if (!origin) return undefined;
  if (allowed.includes('*')) return '*';
  return allowed.includes(origin) ? origin : undefined;
}

/**
 * API Gateway on 127.0.0.1: the HTTP API (JWT authorizer emulated with the development secret),
 * the WebSocket API ($connect through the REQUEST authorizer, $default, $disconnect) and the
 * `@connections` endpoint, all calling the same handler modules Lambda runs.
 */
export async function startGateway(
  handlers: GatewayHandlers,
  options: {
    secret: string;
    context: (name: string) => unknown;
    port?: number;
    /** The HTTP API's authorizer: API Gateway's JWT authorizer (default) or the Lambda one. */
    httpAuth?: 'jwt' | 'lambda';
    /** Origins the HTTP API allows (CORS), as the stack's `corsOrigins` (default `*`). */
    corsOrigins?: readonly string[];
    /** The JWT authorizer's issuer and audience, checked when set (as the deployed one's). */
    issuer?: string;
    audience?: string;
    /** How long a WebSocket may stay silent before it is closed (default API Gateway's 10 min). */
    idleTimeoutMs?: number;
  },
): Promise<Gateway> {
  const corsOrigins = options.corsOrigins ?? ['*'];
  const sockets = new Map<string, { socket: WebSocket; principal: string | undefined }>();
  const secret = new TextEncoder().encode(options.secret);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  let origin = '';

  const wsContext = (
    connectionId: string,
    routeKey: string,
    eventType: string,
    principal?: string,
  ) => ({
    routeKey,
    eventType,
    stage: STAGE,
    connectionId,
    domainName: new URL(origin).host,
    apiId: 'local',
    requestId: randomUUID(),
    connectedAt: Date.now(),
    requestTimeEpoch: Date.now(),
    identity: { sourceIp: '127.0.0.1' },
    ...(principal ? { authorizer: { principalId: principal, principal } } : {}),
  });

  const server: Server = createServer((req, res) => {
    void route(req, res).catch((err) => {
      // A client gone mid-request (reset, half-sent body) gets nothing; the gateway goes on.
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', code: 'internal-error', message: String(err) }));
    });
  });
  // A socket's own failure (ECONNRESET, a malformed request line) is that client's problem only.
  server.on('clientError', (_err, socket: Duplex) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    socket.destroy();
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const body = await readBody(req);
    const connection = /^\/@connections\/([^/]+)$/.exec(url.pathname);
    if (connection?.[1]) {
      const entry = sockets.get(decodeURIComponent(connection[1]));
      if (!entry || entry.socket.readyState !== entry.socket.OPEN) {
        res.writeHead(410, { 'content-type': 'application/json' }).end('{"message":"Gone"}');
        return;
      }
      if (req.method === 'POST' && entry.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
        // A client that stopped reading: dropped, as API Gateway drops a connection it cannot
        // write to, and gone for whoever posts next.
        entry.socket.terminate();
        res.writeHead(410, { 'content-type': 'application/json' }).end('{"message":"Gone"}');
        return;
      }
      if (req.method === 'DELETE') entry.socket.close();
      else if (req.method === 'POST') entry.socket.send(body.toString('utf8'));
      res.writeHead(200).end();
      return;
    }
    // As API Gateway with CORS configured: it answers a preflight itself (no authorizer, no
    // integration) and adds the allowed origin to every response.
    const allowed = allowedOrigin(req.headers.origin, corsOrigins);
    if (allowed) res.setHeader('access-control-allow-origin', allowed);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.writeHead(
        204,
        allowed
          ? {
              'access-control-allow-methods': CORS.methods,
              'access-control-allow-headers': CORS.headers,
              'access-control-max-age': CORS.maxAge,
            }
          : {},
      );
      res.end();
      return;
    }
    // As the deployed HTTP API: every route but GET /health needs a valid token.
    const open = req.method === 'GET' && url.pathname === '/health';
    const verdict = open ? undefined : await httpAuthorizer(req);
    if (typeof verdict === 'number') {
      // As API Gateway: no token or a bad JWT is 401, a Lambda authorizer's Deny is 403.
      res.writeHead(verdict, { 'content-type': 'application/json' });
      res.end(`{"message":"${verdict === 403 ? 'Forbidden' : 'Unauthorized'}"}`);
      return;
    }
    const event = httpEventOf(req, body, {
      queryParameters: true,
      ...(verdict ? { authorizer: verdict } : {}),
    });
    const result = await handlers.http(event, options.context('http'));
    res.writeHead(result.statusCode ?? 200, result.headers ?? {});
    res.end(result.body ?? '');
  }

  /**
   * The event's `requestContext.authorizer` as the deployed HTTP API builds it, or the status of
   * its refusal (401; 403 for the Lambda authorizer's Deny): `jwt` mode checks the token itself
   * (a JWT authorizer), a token without a non-empty `sub` included; `lambda` mode calls the
   * authorizer function with a payload 1.0 REQUEST event and passes its `context` under `lambda`.
   */
  async function httpAuthorizer(req: IncomingMessage): Promise<Record<string, unknown> | number> {
    const header = req.headers.authorization;
    if (!header) return 401;
    if (options.httpAuth === 'lambda') {
      const policy = await handlers
        .authorizer(
          {
            version: '1.0',
            type: 'REQUEST',
            methodArn: `arn:aws:execute-api:us-east-1:000000000000:local/$default/${req.method}${req.url}`,
            identitySource: header,
            headers: Object.fromEntries(
              Object.entries(req.headers).map(([k, v]) => [k, String(v)]),
            ),
            queryStringParameters: {},
            requestContext: { apiId: 'local', stage: '$default', requestId: randomUUID() },
          },
          options.context('authorizer'),
        )
        .catch(() => undefined);
      if (!policy) return 401;
      const allowed = policy.policyDocument?.Statement?.[0]?.Effect === 'Allow';
      return allowed ? { lambda: policy.context ?? {} } : 403;
    }
    try {
      // As API Gateway's JWT authorizer: `exp` required, `iss` and `aud` checked when set.
      const { payload } = await jwtVerify(header.replace(/^Bearer\s+/i, ''), secret, {
        algorithms: ['HS256'],
        requiredClaims: ['exp'],
        ...(options.issuer ? { issuer: options.issuer } : {}),
        ...(options.audience ? { audience: options.audience } : {}),
      });
      const sub = payload.sub;
      return typeof sub === 'string' && sub ? { jwt: { claims: { sub }, scopes: null } } : 401;
    } catch {
      return 401;
    }
  }

  server.on('upgrade', (req, socket: Socket, head) => {
    // A client may reset at any point of the handshake: its error ends that socket, nothing else.
    socket.on('error', () => socket.destroy());
    void upgrade(req, socket, head).catch(() => socket.destroy());
  });

  async function upgrade(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const connectionId = randomUUID();
    const query = Object.fromEntries(url.searchParams);
    let principal: string | undefined;
    if (!query.token) {
      // The deployed $connect authorizer's identity source is the `token` query parameter:
      // without it API Gateway refuses before calling the authorizer, a header notwithstanding.
      socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    try {
      const policy = await handlers.authorizer(
        {
          type: 'REQUEST',
          methodArn: `arn:aws:execute-api:us-east-1:000000000000:local/${STAGE}/$connect`,
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
          queryStringParameters: query,
          requestContext: wsContext(connectionId, '$connect', 'CONNECT'),
        },
        options.context('authorizer'),
      );
      if (policy?.policyDocument?.Statement?.[0]?.Effect !== 'Allow') {
        // As API Gateway: the authorizer's Deny refuses the handshake with 403.
        socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
        return;
      }
      principal = policy.principalId;
    } catch {
      socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    // A $connect route that fails or answers other than 2xx refuses the connection.
    const connected = await handlers
      .connect(
        { requestContext: wsContext(connectionId, '$connect', 'CONNECT', principal) },
        options.context('ws-connect'),
      )
      .catch(() => ({ statusCode: 500 }));
    const status = connected?.statusCode ?? 200;
    if (status >= 300) {
      // A 4xx answer (a fair-use refusal: 429, Retry-After) is the handshake's status.
      socket.end(refusal(status >= 400 && status < 500 ? connected : { statusCode: 500 }));
      return;
    }
    const disconnect = () =>
      handlers
        .disconnect(
          { requestContext: wsContext(connectionId, '$disconnect', 'DISCONNECT', principal) },
          options.context('ws-disconnect'),
        )
        .catch(() => undefined);
    if (socket.destroyed || !socket.writable) {
      // Gone while $connect ran: API Gateway then calls $disconnect, so nothing is left behind.
      await disconnect();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.set(connectionId, { socket: ws, principal });
      // A bad frame (invalid UTF-8 text, a frame over the limit) closes this connection with
      // its code (1007, 1009); a reset ends it. Neither reaches the rest of the gateway.
      ws.on('error', () => ws.terminate());
      const idle = idleTimer(ws, options.idleTimeoutMs ?? IDLE_TIMEOUT_MS);
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        idle.refresh();
        const requestContext = wsContext(connectionId, '$default', 'MESSAGE', principal);
        // As API Gateway: a binary frame reaches the route base64-encoded.
        const body = isBinary ? data.toString('base64') : data.toString('utf8');
        handlers
          .message(
            { body, isBase64Encoded: isBinary, requestContext },
            options.context('ws-message'),
          )
          .catch(() => {
            // What API Gateway tells the client when the route's function fails.
            if (ws.readyState !== ws.OPEN) return;
            ws.send(
              JSON.stringify({
                message: 'Internal server error',
                connectionId,
                requestId: requestContext.requestId,
              }),
            );
          });
      });
      // Whoever closes (the client, a DELETE on @connections, the gateway stopping), API
      // Gateway then calls $disconnect, once; its failure reaches no one.
      ws.once('close', () => {
        clearTimeout(idle);
        sockets.delete(connectionId);
        void disconnect();
      });
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new PortInUse(options.port ?? 0) : err),
    );
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    wsUrl: `ws://127.0.0.1:${port}`,
    connectionsUrl: origin,
    close: async () => {
      for (const { socket } of sockets.values()) socket.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A refused handshake as raw HTTP: the status, its headers and body (a 4xx of $connect). */
function refusal(result: { statusCode: number; headers?: Record<string, string>; body?: string }) {
  const reason = STATUS_CODES[result.statusCode] ?? 'Error';
  const headers = Object.entries(result.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`);
  const body = result.body ?? '';
  const length = `content-length: ${Buffer.byteLength(body)}\r\n`;
  return `HTTP/1.1 ${result.statusCode} ${reason}\r\n${headers.join('')}${length}\r\n${body}`;
}

/** Closes a WebSocket that stays silent (a half-open client sends nothing, not even a close). */
function idleTimer(ws: WebSocket, ms: number): NodeJS.Timeout {
  const timer = setTimeout(() => ws.terminate(), ms);
  timer.unref();
  return timer;
}
