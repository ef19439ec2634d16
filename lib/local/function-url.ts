import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Duplex, PassThrough } from 'node:stream';
import { PRELUDE_DELIMITER } from '../aws/middleware/response-stream.js';
import { httpEventOf, readBody } from './http-event.js';

type StreamingHandler = (event: unknown, stream: PassThrough, context: unknown) => Promise<void>;

/** Lambda's documented soft limit on a streamed response's size. */
export const MAX_STREAMED_BYTES = 20 * 1024 * 1024;

export interface FunctionUrl {
  readonly url: string;
  close(): Promise<void>;
}

export interface FunctionUrlOptions {
  context: () => unknown;
  port?: number;
  /** The function's timeout: the response is cut there, as Lambda ends the invocation. */
  timeoutMs?: number;
  maxBytes?: number;
}

/**
 * A Lambda Function URL with `InvokeMode: RESPONSE_STREAM` on 127.0.0.1: the request becomes a
 * payload 2.0 event, the handler writes to a response stream, and each chunk goes to the client
 * as it is written (chunked transfer). The status and headers come from the JSON prelude before
 * 8 NUL bytes (`HttpResponseStream.from`); without one it is 200 application/octet-stream. A
 * client that disconnects does not stop the handler; past `maxBytes` or `timeoutMs` the response
 * is cut, as Lambda cuts it.
 */
export async function startFunctionUrl(
  handler: StreamingHandler,
  options: FunctionUrlOptions,
): Promise<FunctionUrl> {
  const server = createServer((req, res) => {
    void serve(handler, options, req, res).catch(() => res.destroy());
  });
  // A client's reset or malformed request ends that client's socket only.
  server.on('clientError', (_err, socket: Duplex) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function serve(
  handler: StreamingHandler,
  options: FunctionUrlOptions,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readBody(req);
  const stream = new PassThrough();
  const relay = new Relay(res, options.maxBytes ?? MAX_STREAMED_BYTES);
  stream.on('data', (chunk: Buffer) => relay.push(chunk));
  stream.on('end', () => relay.end());
  const timer = setTimeout(() => relay.cut(), options.timeoutMs ?? 60_000);
  try {
    await handler(eventOf(req, body), stream, options.context());
  } finally {
    clearTimeout(timer);
    if (!stream.writableEnded) stream.end();
  }
}

/** Prelude first (status, headers), then every chunk as it comes; drops output once cut. */
class Relay {
  #pending = Buffer.alloc(0);
  #headed = false;
  #sent = 0;
  #cut = false;

  constructor(
    readonly res: ServerResponse,
    readonly maxBytes: number,
  ) {}

  push(chunk: Buffer): void {
    if (this.#cut || this.res.destroyed) return;
    if (!this.#headed) {
      this.#pending = Buffer.concat([this.#pending, chunk]);
      const at = this.#pending.indexOf(Buffer.from(PRELUDE_DELIMITER));
      if (at < 0) return;
      const prelude = preludeOf(this.#pending.subarray(0, at));
      if (!prelude) {
        // As Lambda when the handler writes a broken prelude: the invocation fails, 502.
        this.#cut = true;
        this.res.writeHead(502, { 'content-type': 'application/json' });
        this.res.end('{"message":"Internal Server Error"}');
        return;
      }
      this.res.writeHead(prelude.statusCode ?? 200, prelude.headers ?? {});
      this.res.flushHeaders();
      this.#headed = true;
      chunk = this.#pending.subarray(at + PRELUDE_DELIMITER.length);
    }
    this.#sent += chunk.length;
    if (this.#sent > this.maxBytes) {
      this.cut();
      return;
    }
    if (chunk.length > 0) this.res.write(chunk);
  }

  end(): void {
    if (this.#cut || this.res.destroyed) return;
    if (!this.#headed) {
      this.res.writeHead(200, { 'content-type': 'application/octet-stream' });
      this.res.end(this.#pending);
      return;
    }
    this.res.end();
  }

  /** As Lambda past the limit or the timeout: the connection ends mid-stream. */
  cut(): void {
    this.#cut = true;
    // What was written still goes out; the chunked body never gets its last chunk.
    const socket = this.res.socket;
    if (socket) socket.destroySoon();
    else this.res.destroy();
  }
}

function preludeOf(
  bytes: Buffer,
): { statusCode?: number; headers?: Record<string, string> } | undefined {
  try {
    const prelude = JSON.parse(bytes.toString('utf8'));
    return prelude !== null && typeof prelude === 'object' ? prelude : undefined;
  } catch {
    return undefined;
  }
}

function eventOf(req: IncomingMessage, body: Buffer) {
  return httpEventOf(req, body, { queryParameters: true });
}
