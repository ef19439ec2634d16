import { noopTracer, type Tracer } from '../core/tracer.js';
import { CloudWatchTracer, type CloudWatchTracerOptions } from './cloudwatch.js';
import { tracingConfigFromEnv } from './config.js';

/**
 * The tracer the configuration asks for: `cloudwatch` by default on Lambda, `none` (the no-op
 * tracer) elsewhere unless AGENT_KERNEL_TRACING=cloudwatch.
 */
export function createTracer(options: CloudWatchTracerOptions = {}): Tracer {
  const config = tracingConfigFromEnv(options.env ?? process.env, options.config);
  if (config.backend === 'none') return noopTracer;
  return new CloudWatchTracer({ ...options, config });
}
