import { LogFormatter, Logger, LogItem } from '@aws-lambda-powertools/logger';
import type { UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import type { Tracer } from '../../core/tracer.js';
import { Redactor, secretsFromEnv } from '../../tracing/redact.js';
import { createTracer } from '../../tracing/select.js';
import { activeLogContext } from '../../tracing/span.js';
import { tracerOptions } from './json-observability.js';

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
  const tracer = createTracer(tracerOptions(service, env, redactor, logger));
  return { logger, tracer, redactor };
}

// The middleware every function's front is built of (lib/aws/middleware/handler-stack.ts), where they were.
export { withLogging, withTracersFlushed } from './handler-stack.js';
