import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HTTP_ROUTES } from '../../../infra/constructs/http-api.js';
import { FairUse } from '../../../lib/app/fair-use.js';
import { createHttpHandler, type HttpEvent } from '../../../lib/aws/handlers/http-api.js';
import { loadConfig } from '../../../lib/aws/wiring/config.js';
import type { Deployment } from '../../../lib/aws/wiring/deployment.js';
import { Runtime } from '../../../lib/core/runtime.js';
import {
  InMemoryConnectionStore,
  InMemoryIdempotencyStore,
  InMemoryPausedRunStore,
  InMemoryQuotaStore,
  InMemoryRunRecordStore,
  InMemorySessionIndex,
  InMemorySessionStore,
} from '../../../lib/stores/index.js';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const MAX_SEGMENTS = 5;

/** The path words the handler compares against (`=== 'runs'`), and an id. */
export function alphabet(documented: readonly string[]): string[] {
  const source = readFileSync(
    fileURLToPath(new URL('../../../lib/aws/handlers/http-api.ts', import.meta.url)),
    'utf8',
  );
  const words = [...source.matchAll(/=== '([a-z][a-z-]*)'/g)].map((m) => m[1] ?? '');
  const literal = documented.flatMap((r) => r.split(/[ /]/)).filter((w) => /^[a-z-]+$/.test(w));
  return [...new Set([...words, ...literal, 'id-1'])];
}

/**
 * Every path of up to four route words (11k paths), and of five: every documented five-word
 * route with each placeholder filled by every word, plus each of those with any one segment
 * swapped for any word (the near misses a router gets wrong). The brute force over all 100k
 * five-word paths proved no more about a router that compares segments to words, at 10x the time;
 * the property test in docs.test.ts samples the rest of the five- and six-word space.
 */
function paths(words: readonly string[], documented: readonly string[]): string[][] {
  let level: string[][] = [[]];
  const all: string[][] = [];
  for (let n = 0; n < MAX_SEGMENTS - 1; n++) {
    level = level.flatMap((path) => words.map((w) => [...path, w]));
    for (const path of level) all.push(path);
  }
  const seen = new Set<string>();
  const add = (path: string[]) => {
    if (seen.has(path.join('/'))) return;
    seen.add(path.join('/'));
    all.push(path);
  };
  for (const route of documented) {
    const parts = (route.split(' ')[1] ?? '').split('/').filter(Boolean);
    if (parts.length !== MAX_SEGMENTS) continue;
    let filled: string[][] = [[]];
    for (const part of parts) {
      const options = part.startsWith('{') ? words : [part];
      filled = filled.flatMap((path) => options.map((w) => [...path, w]));
    }
    for (const path of filled) {
      for (let i = 0; i < path.length; i++) {
        for (const w of words) add(path.map((p, j) => (j === i ? w : p)));
      }
    }
  }
  return all;
}

function eventOf(method: string, path: string): HttpEvent {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    body: '',
    isBase64Encoded: false,
    requestContext: {
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'docs' },
      authorizer: { jwt: { claims: { sub: 'user-1' } } },
    },
  } as unknown as HttpEvent;
}

/** A documented template (`{id}` matches one segment) the path fits, else the path itself. */
function templateOf(method: string, segments: readonly string[], documented: readonly string[]) {
  const match = documented.find((route) => {
    const [m, path = ''] = route.split(' ');
    const parts = path.split('/').filter(Boolean);
    return (
      m === method &&
      parts.length === segments.length &&
      parts.every((p, i) => p.startsWith('{') || p === segments[i])
    );
  });
  return match ?? `${method} /${segments.join('/')}`;
}

/**
 * Which routes the real HTTP handler serves (over in-memory stores): every method on the paths
 * above, built from its route words; a route it does not serve answers "Route … was not found."
 * And the routes the CDK construct creates on API Gateway.
 */
export async function servedRoutes(documented: readonly string[]) {
  const handler = docsHandler();
  const served = new Set<string>();
  for (const segments of paths(alphabet(documented), documented)) {
    for (const method of METHODS) {
      const template = await servedTemplate(handler, method, segments, documented);
      if (template) served.add(template);
    }
  }
  const created = HTTP_ROUTES.map((route) => `${route.method} ${route.path}`);
  return { served: [...served].sort(), created: created.sort() };
}

export type DocsHandler = ReturnType<typeof createHttpHandler>;

/**
 * The template (documented, else the raw path) the handler serves `method segments` as, or
 * undefined where it answers "Route … was not found."
 */
export async function servedTemplate(
  handler: DocsHandler,
  method: string,
  segments: readonly string[],
  documented: readonly string[],
): Promise<string | undefined> {
  const response = await handler(eventOf(method, `/${segments.join('/')}`));
  const body = JSON.parse(String(response.body)) as { message?: string };
  if (response.statusCode === 404 && body.message?.startsWith('Route ')) return undefined;
  return templateOf(method, segments, documented);
}

/** The real HTTP handler over in-memory stores, as the stack deploys it. */
export function docsHandler(): DocsHandler {
  const pausedRuns = new InMemoryPausedRunStore();
  const runtime = new Runtime({ sessions: new InMemorySessionStore(), pausedRuns });
  const deployed = {
    config: loadConfig({ AUTH_MODE: 'hs256', JWT_SECRET: 'docs-test-secret' }),
    runtime,
    runs: new InMemoryRunRecordStore(),
    connections: new InMemoryConnectionStore(),
    idempotency: new InMemoryIdempotencyStore(),
    sessionIndex: new InMemorySessionIndex(),
    approvals: pausedRuns,
    // As the stack deploys it (quotas on by default): GET /usage is served.
    fairUse: new FairUse(new InMemoryQuotaStore(), {
      limits: {},
      queuedLeaseMs: 60_000,
      connectionLeaseMs: 60_000,
    }),
  } as unknown as Deployment;
  return createHttpHandler(async () => deployed);
}
