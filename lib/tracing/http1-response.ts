import { OtlpExportFailed } from './errors.js';

const HEAD_END = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);
/** A collector's status line and headers fit well within this; more is not HTTP we expect. */
const MAX_HEAD = 16 * 1024;
/** How much of a refusal's body is kept: its start says why (auth, quota, schema). */
const MAX_WHY = 200;

type State = 'head' | 'length' | 'size' | 'data' | 'data-end' | 'trailer' | 'eof' | 'done';

/**
 * Reads one HTTP/1.1 response from a socket's bytes, as they come: the status line, then a body
 * framed by Content-Length, chunked, or the end of the connection (then it cannot be reused).
 * Interim 1xx answers are skipped. Only the start of a non-2xx body is kept.
 */
export class ResponseReader {
  status = 0;
  why = '';
  /** The connection may carry another request once this response is read. */
  reusable = true;
  #state: State = 'head';
  #buffer: Buffer = EMPTY;
  #remaining = 0;

  /** Takes the next bytes; true once the response is complete. Throws on bytes that are not HTTP. */
  push(chunk: Buffer): boolean {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    while (this.#state !== 'done' && this.#step()) {}
    // Bytes past the response: the server is not speaking request/response, do not reuse.
    if (this.#state === 'done' && this.#buffer.length > 0) this.reusable = false;
    return this.#state === 'done';
  }

  /** The connection ended: true when that ends the response (a body read to the end). */
  end(): boolean {
    if (this.#state === 'eof') this.#state = 'done';
    return this.#state === 'done';
  }

  /** One step on the buffered bytes; false when it needs more. */
  #step(): boolean {
    switch (this.#state) {
      case 'head':
        return this.#head();
      case 'length':
      case 'data':
        return this.#body();
      case 'eof':
        this.#keep(this.#buffer);
        this.#buffer = EMPTY;
        return false;
      case 'size':
        return this.#chunkSize();
      case 'data-end':
        if (this.#buffer.length < 2) return false;
        if (this.#buffer[0] !== 13 || this.#buffer[1] !== 10) throw notHttp('bad chunk end');
        this.#buffer = this.#buffer.subarray(2);
        this.#state = 'size';
        return true;
      default:
        return this.#trailer();
    }
  }

  #head(): boolean {
    const end = this.#buffer.indexOf(HEAD_END);
    if (end < 0) {
      if (this.#buffer.length > MAX_HEAD) throw notHttp('head too long');
      return false;
    }
    const lines = this.#buffer.toString('latin1', 0, end).split('\r\n');
    this.#buffer = this.#buffer.subarray(end + 4);
    const line = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '');
    if (!line) throw notHttp(`status line "${(lines[0] ?? '').slice(0, 40)}"`);
    const status = Number(line[2]);
    // 100 Continue, 103 Early Hints: the answer follows.
    if (status >= 100 && status < 200) return true;
    this.status = status;
    let length: number | undefined;
    let chunked = false;
    let connection = '';
    for (let i = 1; i < lines.length; i++) {
      const text = lines[i] as string;
      const colon = text.indexOf(':');
      if (colon <= 0) continue;
      const name = text.slice(0, colon).trim().toLowerCase();
      const value = text.slice(colon + 1).trim();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = /(^|,)\s*chunked\s*$/i.test(value);
      else if (name === 'connection') connection = value.toLowerCase();
    }
    this.reusable =
      line[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    if (status === 204 || status === 304) this.#state = 'done';
    else if (chunked) this.#state = 'size';
    else if (length !== undefined) {
      if (!Number.isSafeInteger(length) || length < 0) throw notHttp('bad Content-Length');
      this.#remaining = length;
      this.#state = length === 0 ? 'done' : 'length';
    } else {
      this.#state = 'eof';
      this.reusable = false;
    }
    return true;
  }

  #body(): boolean {
    if (this.#buffer.length === 0) return false;
    const take = Math.min(this.#remaining, this.#buffer.length);
    this.#keep(this.#buffer.subarray(0, take));
    this.#buffer = this.#buffer.subarray(take);
    this.#remaining -= take;
    if (this.#remaining > 0) return false;
    this.#state = this.#state === 'data' ? 'data-end' : 'done';
    return true;
  }

  #chunkSize(): boolean {
    const eol = this.#buffer.indexOf('\r\n');
    if (eol < 0) {
      if (this.#buffer.length > MAX_HEAD) throw notHttp('chunk size line too long');
      return false;
    }
    const text = this.#buffer.toString('latin1', 0, eol);
    this.#buffer = this.#buffer.subarray(eol + 2);
    const size = Number.parseInt(text.split(';')[0] as string, 16);
    if (!Number.isSafeInteger(size) || size < 0) throw notHttp('bad chunk size');
    this.#remaining = size;
    this.#state = size === 0 ? 'trailer' : 'data';
    return true;
  }

  /** Trailer lines after the last chunk, up to an empty one. */
  #trailer(): boolean {
    const eol = this.#buffer.indexOf('\r\n');
    if (eol < 0) {
      if (this.#buffer.length > MAX_HEAD) throw notHttp('trailer line too long');
      return false;
    }
    this.#buffer = this.#buffer.subarray(eol + 2);
    if (eol === 0) this.#state = 'done';
    return true;
  }

  #keep(bytes: Buffer): void {
    if (this.status >= 200 && this.status < 300) return;
    const room = MAX_WHY - this.why.length;
    if (room > 0) this.why += bytes.toString('utf8', 0, Math.min(bytes.length, room));
  }
}

function notHttp(detail: string): OtlpExportFailed {
  return new OtlpExportFailed(`the collector's answer is not HTTP/1.1 (${detail})`);
}
