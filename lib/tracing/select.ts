import type { Tracer } from '../core/tracer.js';
import { CloudWatchTracer } from './cloudwatch.js';
import { tracingConfigFromEnv } from './config.js';
import { type CreateTracerOptions, tracerForConfig } from './select-backends.js';

export {
  type CreateTracerOptions,
  type OtelFactory,
  registerOtelBackend,
} from './select-backends.js';

/**
 * The tracer the configuration asks for: `cloudwatch` by default on Lambda, `none` (the no-op
 * tracer) elsewhere; OTel presets (`otlp`, `langfuse`, `logfire`, `openllmetry`) share one
 * OtelTracer; several backends make a MultiTracer. A buffering tracer must be flushed
 * (`flushTracer`) before a handler answers, a lazy one awaited first (`tracersReady`).
 */
export function createTracer(options: CreateTracerOptions = {}): Tracer {
  const config = tracingConfigFromEnv(options.env ?? process.env, options.config);
  return tracerForConfig(config, options, (o, c) => new CloudWatchTracer({ ...o, config: c }));
}
