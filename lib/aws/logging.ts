import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';

/** One JSON logger per function; request-scoped keys (sessionId, runId) are appended per call. */
export function createLogger(serviceName: string): Logger {
  // Powertools reads POWERTOOLS_LOG_LEVEL / LOG_LEVEL from the environment itself.
  return new Logger({ serviceName });
}

/** The thin front every function shares: middy + Powertools context injection. */
export function withLogging<E, R>(
  logger: Logger,
  handler: (event: E, context: Context) => Promise<R>,
): middy.MiddyfiedHandler<E, R, Error, Context> {
  return middy<E, R, Error, Context>(handler).use(injectLambdaContext(logger, { resetKeys: true }));
}
