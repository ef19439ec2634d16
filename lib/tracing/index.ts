import { OtelTracer } from './otel.js';
import { registerOtelBackend } from './select.js';

export { type CapturableClient, captureClient } from './capture.js';
export { CloudWatchTracer, type CloudWatchTracerOptions } from './cloudwatch.js';
export {
  DaemonAddressSchema,
  LOG_LEVELS,
  type LogLevel,
  OTEL_PRESETS,
  type OtelPreset,
  type TracingConfig,
  TracingConfigSchema,
  tracingConfig,
  tracingConfigFromEnv,
} from './config.js';
export * from './errors.js';

export { LazyTracer, tracersReady } from './lazy.js';
export {
  JsonLogger,
  type LineSink,
  type LogContext,
  type LogPort,
  stdoutSink,
} from './logger.js';
export { METRIC_DIMENSIONS, METRICS, type MetricName, MetricsBuffer } from './metrics.js';
export {
  type FlushableTracer,
  flushBufferedTracers,
  flushTracer,
  MultiSpan,
  MultiTracer,
} from './multi.js';
export { OtelSpan, OtelTracer, type OtelTracerOptions } from './otel.js';
export { type PrincipalPolicy, toOtelAttributes } from './otel-attributes.js';
export { BufferedSpanProcessor } from './otel-buffer.js';
export { type OtlpTarget, otlpTargets, parseOtlpHeaders } from './otel-presets.js';
export {
  currentTraceHeader,
  type SqsMessageLike,
  TRACE_HEADER_ATTRIBUTE,
  traceHeaderFromSqs,
  withTraceHeader,
} from './propagation.js';
export { REDACTED, Redactor, type RedactorOptions, secretsFromEnv } from './redact.js';
export {
  type CreateTracerOptions,
  createTracer,
  type OtelFactory,
  registerOtelBackend,
} from './select.js';
export { activeLogContext, CloudWatchSpan } from './span.js';
export {
  flattenSegment,
  formatTraceHeader,
  nestSubsegments,
  newSegmentId,
  newTraceId,
  parseDaemonPacket,
  parseTraceHeader,
  type SegmentDocument,
  type SegmentEmitter,
  type TraceHeader,
  UdpSegmentEmitter,
} from './xray.js';
export { bridgeXraySdk, type XraySdkLike } from './xray-sdk.js';

// The public entry holds OtelTracer anyway: createTracer builds it at once (no lazy import).
registerOtelBackend((options) => new OtelTracer(options));
