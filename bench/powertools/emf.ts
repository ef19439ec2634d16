import type { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * lib/aws/adapters/emf-count.ts `emitCount` on `@aws-lambda-powertools/metrics`, for bench/powertools-choice.ts
 * only. One metric published at once (a count must not wait for a flush that a crash skips);
 * the log message and level go in a separate logger line, since Powertools' EMF line is its own.
 */
export function emitCount(
  logger: Logger | undefined,
  options: {
    name: string;
    value?: number;
    message?: string;
    level?: 'info' | 'warn';
    dimensions?: Record<string, string>;
    properties?: Record<string, unknown>;
  },
): void {
  const { name, value = 1, dimensions = {}, properties = {} } = options;
  const metrics = new Metrics({
    namespace: process.env.AGENT_KERNEL_METRICS_NAMESPACE ?? 'AgentKernel',
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'agent-kernel',
  });
  metrics.addDimensions(dimensions);
  for (const [key, property] of Object.entries(properties)) {
    metrics.addMetadata(key, typeof property === 'string' ? property : JSON.stringify(property));
  }
  metrics.addMetric(name, MetricUnit.Count, value);
  metrics.publishStoredMetrics();
  logger?.[options.level ?? 'warn'](options.message ?? name, { ...dimensions, ...properties });
}
