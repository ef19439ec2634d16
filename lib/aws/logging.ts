import { LogFormatter, Logger, LogItem, LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { inSpan, noopTracer, type Tracer } from '../core/tracer.js';
import type { LogLevel } from '../tracing/config.js';
import { tracersReady } from '../tracing/lazy.js';
import type { LogContext, LogPort } from '../tracing/logger.js';
import { flushBufferedTracers } from '../tracing/multi.js';
import { Redactor, secretsFromEnv } from '../tracing/redact.js';
import { createTracer } from '../tracing/select.js';
import { activeLogContext } from '../tracing/span.js';
import { loadTracingSecret } from './tracing-secret.js';

/**
 * Powertools' line (level, message, timestamp, service, Lambda context, X-Ray id) plus the ids
 * of the active span — the client's requestId, sessionId, runId, agent and the trace that joins
 * the WebSocket message, the job and the fan-out — every field through the tracer's redactor.
 */
class KernelLogFormatter extends LogFormatter {
  constructor(private readonly redactor: Redactor) {
    super();
  }

  formatAttributes(attributes: UnformattedAttributes, additional: Record<string, unknown>) {
    const lambda = attributes.lambdaContext;
    const line: Record<string, unknown> = {
      level: attributes.logLevel,
      message: attributes.message,
      timestamp: this.formatTimestamp(attributes.timestamp),
      service: attributes.serviceName,
      cold_start: lambda?.coldStart,
      function_name: lambda?.functionName,
      function_request_id: lambda?.awsRequestId,
      xray_trace_id: attributes.xRayTraceId,
      // The active span's ids first: a line about another span (the tracer's) names its own.
      ...activeLogContext(),
      ...additional,
    };
    return new LogItem({ attributes: this.redactor.redact(line) as Record<string, unknown> });
  }
}

const THRESHOLD: Record<LogLevel, number> = {
  debug: LogLevelThreshold.DEBUG,
  info: LogLevelThreshold.INFO,
  warn: LogLevelThreshold.WARN,
  error: LogLevelThreshold.ERROR,
};

/** The tracer's run and failure lines written by the function's Powertools logger. */
function logPortOf(logger: Logger): LogPort {
  const log = (
    level: LogLevel,
    message: string,
    fields?: Record<string, unknown>,
    context?: LogContext,
  ) => {
    const all = { ...fields, ...context };
    if (level === 'debug') logger.debug(message, all);
    else if (level === 'info') logger.info(message, all);
    else if (level === 'warn') logger.warn(message, all);
    else logger.error(message, all);
  };
  return {
    enabled: (level) => logger.level <= THRESHOLD[level],
    log,
    debug: (message, fields) => log('debug', message, fields),
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
  };
}

/** What every function writes with: one logger, one tracer, one redactor. */
export interface Observability {
  readonly logger: Logger;
  readonly tracer: Tracer;
  /** Learns secrets read later (the model key) so no line or trace shows them. */
  readonly redactor: Redactor;
}

/**
 * The function's logger (Powertools, JSON, level from POWERTOOLS_LOG_LEVEL / LOG_LEVEL /
 * AWS_LAMBDA_LOG_LEVEL) and tracer (`cloudwatch` on Lambda, `none` elsewhere unless
 * AGENT_KERNEL_TRACING asks; lib/tracing/config.ts), sharing one redactor.
 */
export function observability(
  serviceName: string,
  env: Record<string, string | undefined> = process.env,
): Observability {
  const redactor = new Redactor({ secrets: secretsFromEnv(env) });
  // The stack names each function's service (POWERTOOLS_SERVICE_NAME); locally the role does.
  const service = env.POWERTOOLS_SERVICE_NAME || serviceName;
  const logger = new Logger({
    serviceName: service,
    logFormatter: new KernelLogFormatter(redactor),
  });
  // A root segment off Lambda is named after the function, as Lambda names its own.
  const config = env.AGENT_KERNEL_SERVICE_NAME ? {} : { serviceName: service };
  // The presets' credentials come from Secrets Manager at cold start, before the OTel backend.
  const secret = env.AGENT_KERNEL_TRACING_SECRET_NAME;
  const tracer = createTracer({
    env,
    config,
    redactor,
    logger: logPortOf(logger),
    ...(secret ? { prepareOtel: async () => void (await loadTracingSecret(env, redactor)) } : {}),
    onBackendError: (error) =>
      logger.error('tracing backend unavailable: its spans are not recorded', {
        error: error as Error,
      }),
  });
  return { logger, tracer, redactor };
}

/** At most 2 s, and never past the invocation's deadline (minus a margin to answer). */
function flushBudget(context: Partial<Pick<Context, 'getRemainingTimeInMillis'>> = {}): number {
  const remaining = context.getRemainingTimeInMillis?.() ?? 2_000;
  return Math.max(0, Math.min(2_000, remaining - 200));
}

/**
 * Runs one invocation with the tracers ready first (a lazily imported OTel backend records its
 * first span) and their buffered spans flushed last, within the deadline: after the handler's
 * promise settles the sandbox may freeze, so nothing may be left to export then.
 */
export async function withTracersFlushed<R>(
  context: Partial<Pick<Context, 'getRemainingTimeInMillis'>> | undefined,
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
 * The thin front every function shares: middy + Powertools context injection and, with
 * `span`, one span per invocation (under Lambda's trace) that the handler's spans and log lines
 * hang under. SQS consumers open one span per record instead (lib/aws/batch.ts), each joining
 * the trace its sender started.
 */
export function withLogging<E, R>(
  logger: Logger,
  handler: (event: E, context: Context) => Promise<R>,
  options: { tracer?: Tracer; span?: string } = {},
): middy.MiddyfiedHandler<E, R, Error, Context> {
  const { tracer, span } = options;
  const traced =
    tracer && tracer !== noopTracer && span
      ? (event: E, context: Context) => inSpan(tracer, span, {}, {}, () => handler(event, context))
      : handler;
  // Spans an OTel backend buffered leave before the response: after it the sandbox may freeze.
  const flushed = (event: E, context: Context) =>
    withTracersFlushed(context, () => traced(event, context));
  return middy<E, R, Error, Context>(flushed).use(injectLambdaContext(logger, { resetKeys: true }));
}
