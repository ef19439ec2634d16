import type { Context } from 'aws-lambda';
import type { Tracer } from '../../core/tracer.js';
import { tracersReady } from '../../tracing/lazy.js';
import { flushBufferedTracers } from '../../tracing/multi.js';
import { flushBudget, inInvocationSpan } from './invocation.js';
import type { LambdaJsonLogger } from './json-logger.js';

/** middy's default: its answer when the handler is still running this close to the deadline. */
const TIMEOUT_EARLY_MS = 5;

/**
 * withLogging's front (handler-stack.ts) without middy and Powertools, for a LambdaJsonLogger:
 * the invocation's context on the logger, the tracers ready and flushed (answered or thrown),
 * with `span` one span per invocation, and middy's early timeout (a TimeoutError 5 ms before the
 * deadline, so the flush still runs). test/unit/aws/json-logger.test.ts runs both fronts alike.
 */
export function withJsonLogging<E, R>(
  logger: LambdaJsonLogger,
  handler: (event: E, context: Context) => Promise<R>,
  options: { tracer?: Tracer; span?: string } = {},
): (event: E, context: Context) => Promise<R> {
  const inner = inInvocationSpan(options.tracer, options.span, handler);
  return async (event, context) => {
    logger.startInvocation(event, context);
    await tracersReady();
    try {
      return await timedOutEarly(context, () => inner(event, context));
    } finally {
      await flushBufferedTracers(flushBudget(context));
    }
  };
}

async function timedOutEarly<R>(context: Context | undefined, run: () => Promise<R>): Promise<R> {
  if (!context?.getRemainingTimeInMillis) return run();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new Error('[AbortError]: The operation was aborted.', {
        cause: { package: '@middy/core' },
      });
      err.name = 'TimeoutError';
      reject(err);
    }, context.getRemainingTimeInMillis() - TIMEOUT_EARLY_MS);
  });
  try {
    return await Promise.race([run(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
