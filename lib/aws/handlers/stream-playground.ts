import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { httpResponseStream } from '../middleware/response-stream.js';
import type { HttpEvent } from './http-api.js';

/** The page's files (lib/playground), by the path the browser asks for. */
const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/playground/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};
/** Its ES modules: one per view, any `lib/playground/<name>.js` (a plain name: no path). */
const MODULE = /^\/playground\/([a-z][a-z-]{0,40})\.js$/;

function fileOf(path: string): { file: string; type: string } | undefined {
  const module = MODULE.exec(path)?.[1];
  if (module) return { file: `${module}.js`, type: 'text/javascript; charset=utf-8' };
  return FILES[path];
}

export interface PlaygroundEnv {
  /** Where the page's files are: unset, the function serves no page. */
  PLAYGROUND_DIR?: string;
  /** The HTTP API and WebSocket API the page talks to (its config.json). */
  PLAYGROUND_HTTP_URL?: string;
  PLAYGROUND_WS_URL?: string;
}

/**
 * Serves the playground page on `GET` (no token: the page is public, its API calls are not),
 * when the deployment turned it on (`playground=true`, or the local stack). Answers whether it
 * answered. The page may talk only to this origin and the two APIs (its CSP).
 */
export async function servePlayground(
  event: HttpEvent,
  stream: Writable,
  env: PlaygroundEnv = process.env,
): Promise<boolean> {
  const dir = env.PLAYGROUND_DIR;
  if (!dir || event.requestContext.http.method !== 'GET') return false;
  const path = event.rawPath;
  const config = {
    httpUrl: (env.PLAYGROUND_HTTP_URL ?? '').replace(/\/+$/, ''),
    wsUrl: env.PLAYGROUND_WS_URL ?? '',
  };
  let body: string;
  let type: string;
  if (path === '/playground/config.json') {
    body = JSON.stringify(config);
    type = 'application/json';
  } else {
    const entry = fileOf(path);
    if (!entry) return false;
    const text = await readFile(join(dir, entry.file), 'utf8').catch(() => undefined);
    if (text === undefined) return false;
    body = text;
    type = entry.type;
  }
  const out = httpResponseStream(stream, {
    statusCode: 200,
    headers: { 'content-type': type, ...securityHeaders(config) },
  });
  out.end(body);
  return true;
}

function securityHeaders(config: { httpUrl: string; wsUrl: string }): Record<string, string> {
  const connect = ["'self'", config.httpUrl, config.wsUrl].filter(Boolean).join(' ');
  return {
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      `connect-src ${connect}`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  };
}
