import type { Writable } from 'node:stream';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { AgentKernelError } from '../../core/errors.js';
import type { Tracer } from '../../core/tracer.js';
import { tracersReady } from '../../tracing/lazy.js';
import { flushBufferedTracers } from '../../tracing/multi.js';
import { type ErrorBody, errorBody, errorResponse } from './http-errors.js';
import { flushBudget, inInvocationSpan } from './invocation.js';
import type { StreamingHandler } from './response-stream.js';

// Moved to invocation.ts (no middy there); still exported here, where the fronts import them.
export { flushBudget, inInvocationSpan, withTracersFlushed } from './invocation.js';

/**
 * The cross-cutting parts of every function, as middy middleware (the logger's context is
 * Powertools' own `injectLambdaContext`). What cannot be one is said where it is built.
 */
/**
 * Tracers ready first (a lazily imported OTel backend records its first span), their buffered
 * spans flushed last, within the deadline, whether the handler answered or threw: after the
 * answer the sandbox may freeze, so nothing may be left to export then.
 */
export function tracersFlushed<E, R>(): middy.MiddlewareObj<E, R, Error, Context> {
  const flush = async (request: middy.Request<E, R, Error, Context>) => {
    await flushBufferedTracers(flushBudget(request.context));
  };
  return {
    before: async () => {
      await tracersReady();
    },
    after: flush,
    onError: flush,
  };
}

export interface ErrorAnswer {
  readonly logger?: Logger | undefined;
  /** The line logged for an error that is not ours (ours are answers, not failures). */
  readonly failure: string;
  readonly redact: (text: string) => string;
}

/**
 * A thrown error as the answer: our errors keep their code and (redacted) message, any other is
 * logged and answered `internal-error`. `answer` shapes the body (an HTTP response, or the
 * body itself for a direct invoke).
 */
function errorAnswers<E, R>(
  options: ErrorAnswer,
  answer: (body: ErrorBody, event: E) => R,
  requestIdOf: (event: E) => string | undefined = () => undefined,
): middy.MiddlewareObj<E, R, Error, Context> {
  const { logger, failure, redact } = options;
  return {
    onError: async (request) => {
      const err = request.error;
      if (!(err instanceof AgentKernelError)) logger?.error(failure, err as Error);
      request.response = answer(errorBody(err, requestIdOf(request.event), redact), request.event);
    },
  };
}

/** HTTP: the code's status, `Retry-After` where a retry helps, the JSON error body. */
export function httpErrors<E>(options: ErrorAnswer) {
  return errorAnswers<E, APIGatewayProxyStructuredResultV2>(options, (body) => errorResponse(body));
}

/** Direct invoke: the error body itself, with the payload's `requestId`. */
export function invokeErrors<E, R>(options: ErrorAnswer) {
  return errorAnswers<E, R | ErrorBody>(options, (body) => body, requestIdOf);
}

function requestIdOf(event: unknown): string | undefined {
  const id = (event as { requestId?: unknown } | null)?.requestId;
  return typeof id === 'string' ? id : undefined;
}

/**
 * A handler's own middleware (its error answer) in a middy of its own, so a test calling the
 * factory's handler gets what the function answers. No early timeout: the function's outer
 * middy (withLogging) keeps middy's.
 */
export function handlerWith<E, R>(
  handler: (event: E, context: Context) => Promise<R>,
  ...middleware: middy.MiddlewareObj<E, R, Error, Context>[]
): (event: E, context?: Context) => Promise<R> {
  const m = middy<E, R, Error, Context>(handler, { timeoutEarlyInMillis: 0 }).use(middleware);
  return (event, context) => m(event, context ?? ({} as Context));
}

/**
 * The thin front every function shares: middy + Powertools context injection, the tracers
 * flushed, and with `span` one span per invocation (under Lambda's trace). SQS consumers open one
 * span per record instead (lib/aws/middleware/sqs-batch.ts), each joining the trace its sender started.
 */
export function withLogging<E, R>(
  logger: Logger,
  handler: (event: E, context: Context) => Promise<R>,
  options: { tracer?: Tracer; span?: string } = {},
): middy.MiddyfiedHandler<E, R, Error, Context> {
  return middy<E, R, Error, Context>(inInvocationSpan(options.tracer, options.span, handler))
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(tracersFlushed<E, R>());
}

/**
 * The streaming function's front: the same middleware as every other function's around a
 * handler that writes the response stream itself. Not middy's `streamifyResponse` mode: there
 * the handler returns the body and middy pipes it after its `after` middlewares ran, so the
 * tracer flush would run before the run it should flush (the run happens while the body is
 * written), an error while streaming would reach no `onError`, the status would have to be known
 * before the first event, and it needs Lambda's `awslambda` global at import (absent in the local
 * stack and tests). Here middy runs in its plain mode around the whole write: the stream rides
 * in the event, and its promise settles when the response has ended.
 */
export function withStreamLogging<E>(
  logger: Logger,
  handler: StreamingHandler<E>,
): StreamingHandler<E> {
  interface Streamed {
    event: E;
    stream: Writable;
  }
  const m = middy<Streamed, void, Error, Context>(
    ({ event, stream }: Streamed, context: Context) => handler(event, stream, context),
    // A streamed answer may use the function's whole time: no early timeout error mid-stream.
    { timeoutEarlyInMillis: 0 },
  )
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(tracersFlushed<Streamed, void>());
  return (event, stream, context) => m({ event, stream }, (context ?? {}) as Context);
}
