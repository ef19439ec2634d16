import type { Writable } from 'node:stream';

/** The Lambda Node runtime's global for response streaming (absent outside Lambda). */
interface AwsLambdaGlobal {
  streamifyResponse<H>(handler: H): H;
  HttpResponseStream: { from(stream: Writable, prelude: HttpPrelude): Writable };
}

export interface HttpPrelude {
  statusCode: number;
  headers?: Record<string, string>;
}

export type StreamingHandler<E> = (event: E, stream: Writable, context?: unknown) => Promise<void>;

/** The runtime's marker of a streaming handler: what `awslambda.streamifyResponse` sets. */
export const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');

/** The 8 NUL bytes that end the JSON prelude of a Function URL's streamed HTTP response. */
export const PRELUDE_DELIMITER = new Uint8Array(8);

function awslambda(): AwsLambdaGlobal | undefined {
  const lambda = (globalThis as unknown as { awslambda?: Partial<AwsLambdaGlobal> }).awslambda;
  // Some libraries define a partial global of their own: only the runtime's full one counts.
  return typeof lambda?.streamifyResponse === 'function' && lambda.HttpResponseStream
    ? (lambda as AwsLambdaGlobal)
    : undefined;
}

/**
 * `awslambda.streamifyResponse` on Lambda; elsewhere the handler marked as the runtime marks it,
 * so the local Function URL (lib/local/function-url.ts) calls it with a response stream.
 */
export function streamify<E>(handler: StreamingHandler<E>): StreamingHandler<E> {
  const lambda = awslambda();
  if (lambda) return lambda.streamifyResponse(handler);
  return Object.assign(handler, { [STREAMING]: 'response' });
}

/**
 * Status and headers, then the body: Lambda's `HttpResponseStream.from`, or the same wire format
 * written by hand (JSON prelude, 8 NUL bytes) where that global is absent.
 */
export function httpResponseStream(stream: Writable, prelude: HttpPrelude): Writable {
  const lambda = awslambda();
  if (lambda) return lambda.HttpResponseStream.from(stream, prelude);
  stream.write(JSON.stringify(prelude));
  stream.write(PRELUDE_DELIMITER);
  return stream;
}

/** One SSE frame: `id` lets a client say where it stopped; data is one JSON line. */
export function sseFrame(event: string, data: unknown, id?: string | number): string {
  const idLine = id === undefined ? '' : `id: ${id}\n`;
  return `${idLine}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Writes that never throw nor wait: a client gone mid-stream must not stop (or stall) the run
 * behind it; its chunks are dropped.
 */
export function quietWrite(stream: Writable, chunk: string): void {
  if (stream.destroyed || stream.writableEnded) return;
  if (stream.listenerCount('error') === 0) stream.on('error', () => undefined);
  try {
    stream.write(chunk);
  } catch {
    // The stream broke between the check and the write: the same as a client gone.
  }
}
