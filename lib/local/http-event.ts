import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * A request as an HTTP API (payload 2.0) or Function URL event: what the local gateway and the
 * local Function URL hand their handlers. `authorizer` is the HTTP API authorizer's result.
 */
export function httpEventOf(
  req: IncomingMessage,
  bytes: Buffer,
  options: { authorizer?: Record<string, unknown>; queryParameters?: boolean } = {},
) {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const query = Object.fromEntries(url.searchParams);
  // As API Gateway and Function URLs: a body that is not text travels base64-encoded.
  const text = isUtf8(bytes);
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
    body: text ? bytes.toString('utf8') : bytes.toString('base64'),
    isBase64Encoded: !text,
  };
}

/** The request body as bytes: httpEventOf decides whether it travels as text or base64. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('aborted', () => reject(new Error('request aborted')));
  });
}
