import { OTEL_PRESETS } from './bundling.js';
import { InvalidContextError } from './config-fields.js';

/**
 * The functions' tracing backends (AGENT_KERNEL_TRACING) and the OTel presets' endpoints; their
 * credentials stay in the Secrets Manager secret `secretName`, read at cold start by name.
 */
export interface TracingSettings {
  readonly backends: readonly string[];
  readonly secretName?: string;
  /** Variables set on every function (names and URLs only, never a credential). */
  readonly environment: Readonly<Record<string, string>>;
}

export const TRACING_BACKENDS = ['cloudwatch', 'none', ...OTEL_PRESETS] as const;
/** Endpoint knobs: the preset that reads each and the variable (the vendor's own name) it sets. */
const ENDPOINTS = {
  otlpEndpoint: ['otlp', 'OTEL_EXPORTER_OTLP_ENDPOINT'],
  langfuseBaseUrl: ['langfuse', 'LANGFUSE_BASE_URL'],
  logfireBaseUrl: ['logfire', 'LOGFIRE_BASE_URL'],
  traceloopBaseUrl: ['openllmetry', 'TRACELOOP_BASE_URL'],
} as const;
/** Presets that cannot send without a credential. */
const NEED_SECRET = ['langfuse', 'logfire'];

/** The context's tracing keys, as parsed. */
export interface TracingContext {
  readonly tracing: readonly string[];
  readonly tracingSecretName?: string | undefined;
  readonly otlpEndpoint?: string | undefined;
  readonly langfuseBaseUrl?: string | undefined;
  readonly logfireBaseUrl?: string | undefined;
  readonly traceloopBaseUrl?: string | undefined;
}

/** The tracing knobs together: a preset's endpoint or secret without the preset is a mistake. */
export function tracingFromContext(c: TracingContext): TracingSettings {
  const backends = [...new Set(c.tracing)];
  const fail = (message: string) => new InvalidContextError(`Invalid tracing context: ${message}`);
  if (backends.includes('none') && backends.length > 1)
    throw fail('none cannot be listed with others.');
  const environment: Record<string, string> = {};
  // Unset is cloudwatch on Lambda: only a choice of yours reaches the functions.
  if (backends.join(',') !== 'cloudwatch') environment.AGENT_KERNEL_TRACING = backends.join(',');
  for (const [key, [preset, variable]] of Object.entries(ENDPOINTS)) {
    const url = c[key as keyof typeof ENDPOINTS];
    if (!url) continue;
    if (!backends.includes(preset))
      throw fail(`${key} is set but tracing does not list ${preset}.`);
    environment[variable] = url;
  }
  const needing = backends.filter((name) => NEED_SECRET.includes(name));
  if (needing.length > 0 && !c.tracingSecretName) {
    throw fail(
      `${needing.join(', ')} needs tracingSecretName: a Secrets Manager secret holding its keys as JSON (docs/tracing.md).`,
    );
  }
  const otel = backends.some((name) => (OTEL_PRESETS as readonly string[]).includes(name));
  if (c.tracingSecretName && !otel) {
    throw fail('tracingSecretName is set but tracing lists no OTel preset to read it.');
  }
  if (!c.tracingSecretName) return { backends, environment };
  environment.AGENT_KERNEL_TRACING_SECRET_NAME = c.tracingSecretName;
  return { backends, secretName: c.tracingSecretName, environment };
}
