import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servePlayground } from '../../../lib/aws/handlers/stream-playground.js';
import { type FunctionUrl, startFunctionUrl } from '../../../lib/local/function-url.js';

// The page as the stream function serves it, behind the local Function URL (prelude, headers).
const DIR = resolve(import.meta.dirname, '../../../lib/playground');
const env = {
  PLAYGROUND_DIR: DIR,
  PLAYGROUND_HTTP_URL: 'https://api.example.com/',
  PLAYGROUND_WS_URL: 'wss://ws.example.com/live',
};
let url: FunctionUrl;

beforeAll(async () => {
  url = await startFunctionUrl(
    async (event: any, stream: PassThrough) => {
      const served = await servePlayground(event, stream, env);
      if (!served) stream.end('not the page');
    },
    { context: () => ({}) },
  );
});

afterAll(async () => {
  await url?.close();
});

describe('the playground page from the stream function', () => {
  it('serves the page with a CSP that allows only its files and the two APIs', async () => {
    const page = await fetch(`${url.url}/`);

    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<title>Agent Kernel playground</title>');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self' https://api.example.com wss://ws.example.com/live");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves its module and its configuration (the API URLs, no trailing slash)', async () => {
    const app = await fetch(`${url.url}/playground/app.js`);
    expect(app.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await app.text()).toContain("from './view.js'");
    // Each view is a module of its own, imported by the page's modules.
    for (const module of ['console', 'sessions', 'run-view', 'usage', 'router', 'api', 'dom']) {
      const res = await fetch(`${url.url}/playground/${module}.js`);
      expect(res.headers.get('content-type'), module).toBe('text/javascript; charset=utf-8');
    }
    const config = await fetch(`${url.url}/playground/config.json`);
    expect(await config.json()).toEqual({
      httpUrl: 'https://api.example.com',
      wsUrl: 'wss://ws.example.com/live',
    });
  });

  it('serves nothing else: other paths, other methods, a path out of its folder', async () => {
    for (const [method, path] of [
      ['GET', '/playground/../../package.json'],
      ['GET', '/playground/%2e%2e/%2e%2e/package.json'],
      ['GET', '/index.html'],
      ['GET', '/playground/no-such-view.js'],
      ['GET', '/playground/api.js.map'],
      ['GET', '/playground/..%2fapi.js'],
      ['POST', '/'],
    ] as const) {
      const res = await fetch(`${url.url}${path}`, { method });
      expect(await res.text(), `${method} ${path}`).toBe('not the page');
    }
  });

  it('is off without PLAYGROUND_DIR (a stack deployed without playground=true)', async () => {
    const stream = new PassThrough();
    const event = { rawPath: '/', requestContext: { http: { method: 'GET' } } } as any;
    expect(await servePlayground(event, stream, {})).toBe(false);
    expect(stream.writableLength).toBe(0);
  });
});
