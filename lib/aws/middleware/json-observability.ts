import type { Tracer } from '../../core/tracer.js';
import type { LogLevel } from '../../tracing/config.js';
import type { LogContext, LogPort } from '../../tracing/logger.js';
import { Redactor, secretsFromEnv } from '../../tracing/redact.js';
import type { CreateTracerOptions } from '../../tracing/select-backends.js';
import { createTracerLight } from '../../tracing/select-light.js';
import { loadTracingSecret } from '../wiring/tracing-secret.js';
import { type FunctionLogger, LambdaJsonLogger, THRESHOLDS } from './json-logger.js';

type Env = Record<string, string | undefined>;

/**
 * What a function writes with when it needs no Powertools: the same lines (LambdaJsonLogger),
 * tracer and redactor as observability.ts gives, without Powertools' logger or middy in the
 * bundle. Fronts wrap their handler in withJsonLogging (json-logging.ts).
 */
export async function jsonObservability(
  serviceName: string,
  env: Env = process.env,
): Promise<{ logger: LambdaJsonLogger; tracer: Tracer; redactor: Redactor }> {
  const redactor = new Redactor({ secrets: secretsFromEnv(env) });
  const service = env.POWERTOOLS_SERVICE_NAME || serviceName;
  const logger = new LambdaJsonLogger(service, redactor, env);
  // Checked without zod (select-light.ts): these functions bundle none.
  const tracer = await createTracerLight(tracerOptions(service, env, redactor, logger));
  return { logger, tracer, redactor };
}

/**
 * The options of the function's tracer: its lines written through the function's logger (one
 * line format), the OTel presets' secret read first.
 */
export function tracerOptions(
  service: string,
  env: Env,
  redactor: Redactor,
  logger: FunctionLogger,
): CreateTracerOptions {
  // A root segment off Lambda is named after the function, as Lambda names its own.
  const config = env.AGENT_KERNEL_SERVICE_NAME ? {} : { serviceName: service };
  // The presets' credentials come from Secrets Manager at cold start, before the OTel backend.
  // A bundle built without the OTel backend (infra/bundling.ts) has none to prepare: the test
  // folds to undefined there, so neither the loader nor the Secrets Manager client is bundled.
  const prepareOtel =
    process.env.AGENT_KERNEL_BUNDLE_OTEL === 'false'
      ? undefined
      : tracingSecretLoader(env, redactor);
  return {
    env,
    config,
    redactor,
    logger: logPortOf(logger),
    ...(prepareOtel ? { prepareOtel } : {}),
    onBackendError: (error) =>
      logger.error('tracing backend unavailable: its spans are not recorded', {
        error: error as Error,
      }),
  };
}

function tracingSecretLoader(env: Env, redactor: Redactor) {
  if (!env.AGENT_KERNEL_TRACING_SECRET_NAME) return undefined;
  return async () => void (await loadTracingSecret(env, redactor));
}

const THRESHOLD: Record<LogLevel, number> = {
  debug: THRESHOLDS.DEBUG,
  info: THRESHOLDS.INFO,
  warn: THRESHOLDS.WARN,
  error: THRESHOLDS.ERROR,
};

/** The tracer's run and failure lines written by the function's logger. */
function logPortOf(logger: FunctionLogger): LogPort {
  const log = (
    level: LogLevel,
    message: string,
    fields?: Record<string, unknown>,
    context?: LogContext,
    carried?: Record<string, unknown>,
  ) => {
    // The formatter redacts the whole line, `carried` included (its values are redacted already).
    const all = { ...carried, ...fields, ...context };
    if (level === 'debug') logger.debug(message, all);
    else if (level === 'info') logger.info(message, all);
    else if (level === 'warn') logger.warn(message, all);
    else logger.error(message, all);
  };
  return {
    carries: true,
    enabled: (level) => logger.level <= THRESHOLD[level],
    log,
    debug: (message, fields) => log('debug', message, fields),
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
  };
}
