import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * A request as an HTTP API (payload 2.0) or Function URL event: what the local gateway and the
 * local Function URL hand their handlers. `authorizer` is the HTTP API authorizer's result.
 */
export function httpEventOf(
  req: IncomingMessage,
  body: string,
  options: { authorizer?: Record<string, unknown>; queryParameters?: boolean } = {},
) {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const query = Object.fromEntries(url.searchParams);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
    ...(options.queryParameters && url.search ? { queryStringParameters: query } : {}),
    requestContext: {
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: req.headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      stage: '$default',
      timeEpoch: Date.now(),
      ...(options.authorizer ? { authorizer: options.authorizer } : {}),
    },
    body,
    isBase64Encoded: false,
  };
}
