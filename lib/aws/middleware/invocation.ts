import type { Context } from 'aws-lambda';
import { inSpan, noopTracer, type Tracer } from '../../core/tracer.js';
import { tracersReady } from '../../tracing/lazy.js';
import { flushBufferedTracers } from '../../tracing/multi.js';

/**
 * What every front does around an invocation, whichever logger it writes with: the tracers
 * flushed within the deadline, one span per invocation. No middy and no Powertools here, so the
 * light fronts (lib/aws/middleware/json-logging.ts) import neither.
 */
export type Deadline = Partial<Pick<Context, 'getRemainingTimeInMillis'>> | undefined;

/** At most 2 s, and never past the invocation's deadline (minus a margin to answer). */
export function flushBudget(context: Deadline = {}): number {
  const remaining = context?.getRemainingTimeInMillis?.() ?? 2_000;
  return Math.max(0, Math.min(2_000, remaining - 200));
}

/** The same around one call, for a front that is not a middy handler. */
export async function withTracersFlushed<R>(
  context: Deadline,
  invocation: () => Promise<R>,
): Promise<R> {
  await tracersReady();
  try {
    return await invocation();
  } finally {
    await flushBufferedTracers(flushBudget(context));
  }
}

/**
 * One span per invocation, active while the handler runs so its spans and log lines hang under
 * it. A wrapper, not a middleware: middy's hooks run before and after the handler, never around
 * it, and a span is made active by AsyncLocalStorage's `run(fn)` around the call
 * (lib/core/tracer.ts `inSpan`). It sits inside the middlewares, as the answer to an error sits
 * inside it (handlerWith), so a refused request is no failed span.
 */
export function inInvocationSpan<E, R>(
  tracer: Tracer | undefined,
  span: string | undefined,
  handler: (event: E, context: Context) => Promise<R>,
): (event: E, context: Context) => Promise<R> {
  if (!tracer || tracer === noopTracer || !span) return handler;
  return (event, context) =>
    inSpan(tracer, span, {}, { role: 'server' }, () => handler(event, context));
}
