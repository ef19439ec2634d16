import type { FunctionLogger } from '../middleware/json-logger.js';

/**
 * One EMF count line (namespace AgentKernel): CloudWatch turns it into a metric. `dimensions`
 * name properties of the line (low cardinality only); other properties are searchable in Logs
 * Insights, never dimensions. Written through the logger when there is one: Powertools puts
 * extra keys at the top level of its JSON line, where EMF looks for them.
 */
export function emitCount(
  logger: FunctionLogger | undefined,
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
  const message = options.message ?? name;
  const line = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: process.env.AGENT_KERNEL_METRICS_NAMESPACE ?? 'AgentKernel',
          Dimensions: [Object.keys(dimensions)],
          Metrics: [{ Name: name, Unit: 'Count' }],
        },
      ],
    },
    ...dimensions,
    [name]: value,
    ...properties,
  };
  if (logger) logger[options.level ?? 'warn'](message, line);
  else process.stdout.write(`${JSON.stringify({ message, ...line })}\n`);
}
