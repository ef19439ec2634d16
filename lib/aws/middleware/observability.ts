import { LogFormatter, Logger, LogItem, LogLevelThreshold } from '@aws-lambda-powertools/logger';
import type { UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import type { Tracer } from '../../core/tracer.js';
import type { LogLevel } from '../../tracing/config.js';
import type { LogContext, LogPort } from '../../tracing/logger.js';
import { Redactor, secretsFromEnv } from '../../tracing/redact.js';
import { createTracer } from '../../tracing/select.js';
import { activeLogContext } from '../../tracing/span.js';
import { loadTracingSecret } from '../wiring/tracing-secret.js';

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
  // A bundle built without the OTel backend (infra/bundling.ts) has none to prepare: the test
  // folds to undefined there, so neither the loader nor the Secrets Manager client is bundled.
  const prepareOtel =
    process.env.AGENT_KERNEL_BUNDLE_OTEL === 'false'
      ? undefined
      : tracingSecretLoader(env, redactor);
  const tracer = createTracer({
    env,
    config,
    redactor,
    logger: logPortOf(logger),
    ...(prepareOtel ? { prepareOtel } : {}),
    onBackendError: (error) =>
      logger.error('tracing backend unavailable: its spans are not recorded', {
        error: error as Error,
      }),
  });
  return { logger, tracer, redactor };
}

function tracingSecretLoader(env: Record<string, string | undefined>, redactor: Redactor) {
  if (!env.AGENT_KERNEL_TRACING_SECRET_NAME) return undefined;
  return async () => void (await loadTracingSecret(env, redactor));
}

// The middleware every function's front is built of (lib/aws/middleware/handler-stack.ts), where they were.
export { withLogging, withTracersFlushed } from './handler-stack.js';
