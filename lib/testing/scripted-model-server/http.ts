import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

export interface OpenAIErrorFields {
  message: string;
  type: string;
  code?: string | null;
  param?: string | null;
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** True once the client went away or the answer was sent: nothing more may be written. */
export function isGone(res: ServerResponse): boolean {
  return res.destroyed || res.writableEnded;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  if (isGone(res)) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/** OpenAI's error envelope: the official clients read `error.message`, `type`, `code`, `param`. */
export function sendError(
  res: ServerResponse,
  status: number,
  error: OpenAIErrorFields,
  headers: OutgoingHttpHeaders = {},
): void {
  sendJson(
    res,
    status,
    {
      error: {
        message: error.message,
        type: error.type,
        param: error.param ?? null,
        code: error.code ?? null,
      },
    },
    headers,
  );
}

export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
}

/** Writes one SSE message; Responses events name themselves in an `event:` line, chat chunks don't. */
export function writeSse(res: ServerResponse, data: unknown, event?: string): void {
  if (isGone(res)) return;
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  res.write(`${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`);
}

/** Lets each event leave in its own write, so clients see the stream arrive piece by piece. */
export function nextTick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
