import { describe, expect, it } from 'vitest';
import { ResponseReader } from '../../../lib/tracing/http1-response.js';

/** Feeds `text` cut at `cut` (two pushes), then the end of the connection if `close`. */
function read(text: string, cut: number, close = false) {
  const reader = new ResponseReader();
  const bytes = Buffer.from(text, 'latin1');
  let done = reader.push(bytes.subarray(0, cut));
  if (!done) done = reader.push(bytes.subarray(cut));
  if (!done && close) done = reader.end();
  return { done, status: reader.status, why: reader.why, reusable: reader.reusable };
}

/** The same answer whichever byte the first read ends at. */
function everyCut(text: string, close = false) {
  const results = new Set<string>();
  for (let cut = 0; cut <= text.length; cut++) results.add(JSON.stringify(read(text, cut, close)));
  expect(results.size).toBe(1);
  return JSON.parse([...results][0] as string);
}

describe('ResponseReader', () => {
  it('reads a Content-Length body, split anywhere', () => {
    const answer = everyCut('HTTP/1.1 401 Unauthorized\r\nContent-Length: 7\r\n\r\nbad key');
    expect(answer).toEqual({ done: true, status: 401, why: 'bad key', reusable: true });
  });

  it('reads a chunked body with an extension and a trailer, split anywhere', () => {
    const answer = everyCut(
      'HTTP/1.1 503 x\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nover\r\n6\r\nloaded\r\n0\r\nX-T: 1\r\n\r\n',
    );
    expect(answer).toEqual({ done: true, status: 503, why: 'overloaded', reusable: true });
  });

  it('skips an interim 100 Continue', () => {
    const answer = everyCut(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(answer).toEqual({ done: true, status: 200, why: '', reusable: true });
  });

  it('reads a body without framing to the end of the connection, which is then not reused', () => {
    const answer = everyCut('HTTP/1.1 500 Oops\r\n\r\nit broke', true);
    expect(answer).toEqual({ done: true, status: 500, why: 'it broke', reusable: false });
  });

  it('does not reuse a connection the server closes, nor one of HTTP/1.0 without keep-alive', () => {
    expect(read('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', 5)).toEqual({
      done: true,
      status: 200,
      why: '',
      reusable: false,
    });
    expect(read('HTTP/1.0 204 No Content\r\n\r\n', 5).reusable).toBe(false);
    expect(read('HTTP/1.0 204 No Content\r\nConnection: keep-alive\r\n\r\n', 5).reusable).toBe(
      true,
    );
  });

  it('does not reuse a connection that sent bytes past the response', () => {
    expect(read('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1', 3).reusable).toBe(false);
  });

  it('is not complete until the whole body came', () => {
    expect(read('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}', 3, true).done).toBe(false);
    expect(
      read('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n', 3, true).done,
    ).toBe(false);
  });

  it('keeps only the start of a long refusal, and nothing of a success', () => {
    const long = 'x'.repeat(5_000);
    expect(read(`HTTP/1.1 400 Bad\r\nContent-Length: 5000\r\n\r\n${long}`, 60).why.length).toBe(
      200,
    );
    expect(read(`HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n${long}`, 60).why).toBe('');
  });

  it('throws on an answer that is not HTTP', () => {
    expect(() => new ResponseReader().push(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow(
      'OTLP export failed: the collector\'s answer is not HTTP/1.1 (status line "SSH-2.0-OpenSSH")',
    );
    expect(() =>
      new ResponseReader().push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n')),
    ).toThrow('bad Content-Length');
    expect(() =>
      new ResponseReader().push(
        Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'),
      ),
    ).toThrow('bad chunk size');
  });

  it('bounds what it buffers from a collector that never ends a line', () => {
    const endless = 'x'.repeat(17 * 1024);
    const chunked = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
    expect(() => new ResponseReader().push(Buffer.from(`HTTP/1.1 200 OK\r\n${endless}`))).toThrow(
      'head too long',
    );
    expect(() => new ResponseReader().push(Buffer.from(`${chunked}${endless}`))).toThrow(
      'chunk size line too long',
    );
    expect(() => new ResponseReader().push(Buffer.from(`${chunked}0\r\n${endless}`))).toThrow(
      'trailer line too long',
    );
  });
});
