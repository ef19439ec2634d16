import { noopTracer, type Tracer } from '../core/tracer.js';
import { CloudWatchTracer, type CloudWatchTracerOptions } from './cloudwatch.js';
import { tracingConfigFromEnv } from './config.js';
import { MultiTracer } from './multi.js';
import { OtelTracer, type OtelTracerOptions } from './otel.js';

export type CreateTracerOptions = CloudWatchTracerOptions &
  Pick<OtelTracerOptions, 'exporters' | 'flushTimeoutMs'>;

/**
 * The tracer the configuration asks for: `cloudwatch` by default on Lambda, `none` (the no-op
 * tracer) elsewhere; OTel presets (`otlp`, `langfuse`, `logfire`, `openllmetry`) share one
 * OtelTracer; several backends make a MultiTracer. A buffering tracer must be flushed
 * (`flushTracer`) before a handler answers.
 */
export function createTracer(options: CreateTracerOptions = {}): Tracer {
  const config = tracingConfigFromEnv(options.env ?? process.env, options.config);
  const tracers: Tracer[] = [];
  if (config.backend === 'cloudwatch') tracers.push(new CloudWatchTracer({ ...options, config }));
  if (config.otel.length > 0) tracers.push(new OtelTracer({ ...options, config }));
  if (tracers.length === 0) return noopTracer;
  return tracers.length === 1 ? tracers[0]! : new MultiTracer(tracers);
}
