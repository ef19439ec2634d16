import { request } from 'node:http';
import type { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { httpResponseStream } from '../../../lib/aws/middleware/response-stream.js';
import { type FunctionUrl, startFunctionUrl } from '../../../lib/local/function-url.js';

type Handler = (event: any, stream: PassThrough) => Promise<void>;

const urls: FunctionUrl[] = [];
afterEach(async () => {
  for (const url of urls.splice(0)) await url.close();
});

async function serve(handler: Handler, options: { timeoutMs?: number; maxBytes?: number } = {}) {
  const url = await startFunctionUrl(handler, { context: () => ({}), ...options });
  urls.push(url);
  return url.url;
}

/** A raw HTTP request: status, headers, and each body chunk with its arrival time. */
function get(url: string): Promise<{
  status: number;
  headers: Record<string, unknown>;
  chunks: { text: string; at: number }[];
  aborted: boolean;
}> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/x?token=t`, { method: 'POST' }, (res) => {
      const chunks: { text: string; at: number }[] = [];
      let aborted = false;
      res.on('data', (c: Buffer) => chunks.push({ text: c.toString(), at: performance.now() }));
      res.on('aborted', () => {
        aborted = true;
      });
      res.on('error', () => undefined);
      res.on('close', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks, aborted }),
      );
    });
    req.on('error', reject);
    req.end('{"a":1}');
  });
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('local Function URL (RESPONSE_STREAM) against Lambda’s documented semantics', () => {
  it('takes status and headers from the prelude and sends each write as it is made, chunked', async () => {
    // Prepare
    let event: any;
    const url = await serve(async (e, stream) => {
      event = e;
      const body = httpResponseStream(stream, {
        statusCode: 201,
        headers: { 'content-type': 'text/plain', 'x-one': '1' },
      });
      body.write('first ');
      await wait(300);
      body.write('second');
      body.end();
    });

    // Act
    const response = await get(url);

    // Assess: prelude → status/headers, no prelude bytes in the body, two chunks 300 ms apart
    expect(response.status).toBe(201);
    expect(response.headers['x-one']).toBe('1');
    expect(response.headers['transfer-encoding']).toBe('chunked');
    expect(response.chunks.map((c) => c.text).join('')).toBe('first second');
    expect(response.chunks.length).toBeGreaterThanOrEqual(2);
    expect(response.chunks.at(-1)!.at - response.chunks[0]!.at).toBeGreaterThan(200);
    expect(event.version).toBe('2.0');
    expect(event.requestContext.http.method).toBe('POST');
    expect(event.queryStringParameters).toEqual({ token: 't' });
    expect(event.body).toBe('{"a":1}');
  });

  it('answers 200 application/octet-stream when the handler writes no prelude', async () => {
    const url = await serve(async (_e, stream) => {
      stream.end('raw');
    });
    const response = await get(url);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(response.chunks.map((c) => c.text).join('')).toBe('raw');
  });

  it('cuts the response past the size limit (20 MiB on Lambda)', async () => {
    // Prepare: a limit of 1 KiB, a handler writing 4 KiB
    const url = await serve(
      async (_e, stream) => {
        const body = httpResponseStream(stream, { statusCode: 200 });
        for (let i = 0; i < 4; i++) body.write('x'.repeat(1024));
        body.end();
      },
      { maxBytes: 1024 },
    );

    // Act
    const response = await get(url);

    // Assess: at most the limit arrived, and the connection ended abruptly
    const bytes = response.chunks.reduce((n, c) => n + c.text.length, 0);
    expect(bytes).toBeLessThanOrEqual(1024);
    expect(response.aborted).toBe(true);
  });

  it('cuts the response at the function timeout', async () => {
    const url = await serve(
      async (_e, stream) => {
        const body = httpResponseStream(stream, { statusCode: 200 });
        body.write('before');
        await wait(600);
        body.write('after');
        body.end();
      },
      { timeoutMs: 200 },
    );
    const response = await get(url);
    expect(response.chunks.map((c) => c.text).join('')).toBe('before');
    expect(response.aborted).toBe(true);
  });
});
