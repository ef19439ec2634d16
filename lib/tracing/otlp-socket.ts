import { connect, type Socket } from 'node:net';
import { OtlpExportFailed, TracingConfigInvalid } from './errors.js';
import { ResponseReader } from './http1-response.js';

/** What one POST came to: the collector's status (and the start of a refusal's body). */
export interface PostAnswer {
  readonly status: number;
  readonly why: string;
}

/** RFC 9110 token characters for a header name; a value may hold no CR, LF or NUL. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\r\n\0]/;
/** Framing headers are ours: a configured one would contradict the request we write. */
const OURS = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);

/** `POST … HTTP/1.1` and every header up to `Content-Length: `, the part that never changes. */
export function requestHead(url: URL, headers: Record<string, string>): Buffer {
  let head = `POST ${url.pathname || '/'}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n`;
  const all = { ...headers };
  if (url.username && !Object.keys(all).some((k) => k.toLowerCase() === 'authorization')) {
    const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    all.Authorization = `Basic ${Buffer.from(user).toString('base64')}`;
  }
  for (const [name, value] of Object.entries(all)) {
    // The value is a credential more often than not: never in the message.
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) {
      throw new TracingConfigInvalid(`OTLP header "${name.slice(0, 60)}" is not a valid header`);
    }
    if (!OURS.has(name.toLowerCase())) head += `${name}: ${value}\r\n`;
  }
  return Buffer.from(`${head}Content-Length: `, 'latin1');
}

/** A request in flight on a connection. */
interface Exchange {
  readonly reader: ResponseReader;
  readonly timer: NodeJS.Timeout;
  readonly resolve: (answer: PostAnswer) => void;
  readonly reject: (error: Error) => void;
}

/** One kept-alive TCP connection to the collector, one request at a time. */
class Connection {
  readonly socket: Socket;
  /** It carried a whole exchange before: a failure now may be a socket closed meanwhile. */
  reused = false;
  /** Bytes of the current answer arrived: it was not stale, sending again could duplicate. */
  answered = false;
  #exchange: Exchange | undefined;

  constructor(host: string, port: number, onIdleEnd: (connection: Connection) => void) {
    this.socket = connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.#data(chunk));
    this.socket.on('end', () => this.#ended(onIdleEnd));
    this.socket.on('close', () => this.#ended(onIdleEnd));
    this.socket.on('error', (error) => {
      if (this.#exchange) this.#fail(error);
      else onIdleEnd(this);
    });
  }

  get reusable(): boolean {
    return !this.socket.destroyed && !this.socket.readableEnded;
  }

  send(packet: Buffer, waitMs: number, timeoutMs: number): Promise<PostAnswer> {
    this.answered = false;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => this.#fail(new OtlpExportFailed(`no answer within ${timeoutMs} ms`)),
        waitMs,
      );
      this.#exchange = { reader: new ResponseReader(), timer, resolve, reject };
      this.socket.ref();
      this.socket.write(packet);
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  #data(chunk: Buffer): void {
    const exchange = this.#exchange;
    // Bytes nobody asked for: this is no request/response peer to reuse.
    if (!exchange) {
      this.destroy();
      return;
    }
    this.answered = true;
    let done: boolean;
    try {
      done = exchange.reader.push(chunk);
    } catch (error) {
      this.#fail(error as Error);
      return;
    }
    if (done) this.#finish(exchange);
  }

  #ended(onIdleEnd: (connection: Connection) => void): void {
    const exchange = this.#exchange;
    if (!exchange) onIdleEnd(this);
    else if (exchange.reader.end()) this.#finish(exchange);
    // What node:http says of a socket that closed before its answer.
    else this.#fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
  }

  #finish(exchange: Exchange): void {
    this.#exchange = undefined;
    clearTimeout(exchange.timer);
    this.reused = true;
    if (exchange.reader.reusable) this.socket.unref();
    else this.destroy();
    exchange.resolve({ status: exchange.reader.status, why: exchange.reader.why });
  }

  #fail(error: Error): void {
    const exchange = this.#exchange;
    this.#exchange = undefined;
    this.destroy();
    if (!exchange) return;
    clearTimeout(exchange.timer);
    exchange.reject(error);
  }
}

/**
 * HTTP/1.1 POSTs to one collector over kept-alive sockets, without node:http: the request head
 * is built once, each request is one write (head, length, body), and the answer is read by a
 * small reader (`ResponseReader`). A socket the collector closed meanwhile (a frozen sandbox)
 * fails on reuse before any answer: that request is sent once more on a new socket. Plain
 * `http:` only; TLS endpoints keep node:https (there the network, not the client, dominates).
 */
export class SocketPoster {
  readonly #host: string;
  readonly #port: number;
  readonly #head: Buffer;
  readonly #timeoutMs: number;
  readonly #idle: Connection[] = [];
  readonly #onIdleEnd = (connection: Connection) => {
    const at = this.#idle.indexOf(connection);
    if (at >= 0) this.#idle.splice(at, 1);
    connection.destroy();
  };

  constructor(url: URL, headers: Record<string, string>, timeoutMs: number) {
    if (url.protocol !== 'http:') throw new TypeError(`not an http: URL: ${url.protocol}`);
    // `[::1]` in a URL, `::1` to connect.
    this.#host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.#port = Number(url.port || 80);
    this.#head = requestHead(url, headers);
    this.#timeoutMs = timeoutMs;
  }

  /** Sends `body` (JSON text) and reads the answer, within the timeout; rejects on the wire's errors. */
  post(body: string): Promise<PostAnswer> {
    const length = Buffer.byteLength(body);
    const framing = `${length}\r\n\r\n`;
    const packet = Buffer.allocUnsafe(this.#head.length + framing.length + length);
    this.#head.copy(packet, 0);
    const at = this.#head.length + packet.write(framing, this.#head.length, 'latin1');
    packet.write(body, at, 'utf8');
    return this.#attempt(packet, Date.now() + this.#timeoutMs, true);
  }

  /** Closes the idle sockets (requests in flight finish on theirs). */
  close(): void {
    for (const connection of this.#idle.splice(0)) connection.destroy();
  }

  async #attempt(packet: Buffer, deadline: number, mayRetry: boolean): Promise<PostAnswer> {
    const connection = this.#idle.pop() ?? new Connection(this.#host, this.#port, this.#onIdleEnd);
    try {
      const answer = await connection.send(
        packet,
        Math.max(deadline - Date.now(), 0),
        this.#timeoutMs,
      );
      if (connection.reusable) this.#idle.push(connection);
      return answer;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const stale =
        mayRetry &&
        connection.reused &&
        !connection.answered &&
        (code === 'ECONNRESET' || code === 'EPIPE');
      if (stale && Date.now() < deadline) return this.#attempt(packet, deadline, false);
      throw error;
    }
  }
}
