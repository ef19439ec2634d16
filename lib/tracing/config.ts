import * as z from 'zod';
import { lazySchema } from '../core/lazy-schema.js';
import {
  fromTracingEnv,
  handTracingConfig,
  handTracingEnv,
  presentTracingEnv,
} from './config-fast.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const bool = /* @__PURE__ */ lazySchema(() =>
  z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
);

/** `host:port` or the daemon's `udp:host:port tcp:host:port` form; only UDP is used. */
export const DaemonAddressSchema = /* @__PURE__ */ lazySchema(() =>
  z.string().transform((value, ctx) => {
    const udp = value.split(/\s+/).find((part) => part.startsWith('udp:')) ?? value.trim();
    const match = /^(?:udp:)?([^\s:]+|\[[^\]]+\]):(\d{1,5})$/.exec(udp);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65_535) {
      ctx.addIssue({ code: 'custom', message: `"${value}" is not host:port` });
      return z.NEVER;
    }
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
  }),
);

/** The OpenTelemetry presets `AGENT_KERNEL_TRACING` may name next to `cloudwatch`. */
export const OTEL_PRESETS = ['otlp', 'langfuse', 'logfire', 'openllmetry'] as const;
export type OtelPreset = (typeof OTEL_PRESETS)[number];
const BACKENDS = new Set<string>(['cloudwatch', 'none', ...OTEL_PRESETS]);

/** `cloudwatch,langfuse`: a comma list of backends; `none` alone turns tracing off. */
const BackendList = /* @__PURE__ */ lazySchema(() =>
  z.string().transform((value, ctx) => {
    const names = [...new Set(value.split(',').map((name) => name.trim().toLowerCase()))];
    const unknown = names.find((name) => !BACKENDS.has(name));
    if (unknown !== undefined || (names.includes('none') && names.length > 1)) {
      ctx.addIssue({ code: 'custom', message: `"${unknown ?? value}" is not a tracing backend` });
      return z.NEVER;
    }
    return names;
  }),
);

export const TracingConfigSchema = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    backend: z.enum(['cloudwatch', 'none']),
    /** OpenTelemetry presets exported over OTLP/HTTP (lib/tracing/otel.ts), beside `backend`. */
    otel: z.array(z.enum(OTEL_PRESETS)).default([]),
    /** How a `principal` attribute reaches OTel backends: hashed (default), omitted or plain. */
    principal: z.enum(['hash', 'omit', 'plain']).default('hash'),
    /** Name of the root segment when a span starts a trace (off Lambda). */
    serviceName: z.string().min(1).max(200),
    /** CloudWatch metric namespace of the EMF lines. */
    namespace: z.string().min(1).max(255),
    daemon: z.object({ host: z.string().min(1), port: z.number().int().min(1).max(65_535) }),
    /** Send segment documents to the X-Ray daemon (metrics and logs work without it). */
    xray: z.boolean(),
    /** Record span inputs and outputs as X-Ray metadata (redacted); off by default. */
    capturePayloads: z.boolean(),
    logLevel: z.enum(LOG_LEVELS),
    /** Share of new traces sampled off Lambda; on Lambda the trace header decides. */
    sampleRate: z.number().min(0).max(1),
  }),
);

export type TracingConfig = z.output<typeof TracingConfigSchema>;

/** The variables tracingConfigFromEnv reads (exported for the test of config-fast.ts). */
export const EnvSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    AWS_LAMBDA_FUNCTION_NAME: z.string().min(1).optional(),
    AGENT_KERNEL_TRACING: BackendList.optional(),
    AGENT_KERNEL_TRACE_PRINCIPAL: z.enum(['hash', 'omit', 'plain']).optional(),
    AGENT_KERNEL_SERVICE_NAME: z.string().min(1).optional(),
    AGENT_KERNEL_METRICS_NAMESPACE: z.string().min(1).optional(),
    AWS_XRAY_DAEMON_ADDRESS: DaemonAddressSchema.optional(),
    AGENT_KERNEL_XRAY: bool.optional(),
    AGENT_KERNEL_TRACE_PAYLOADS: bool.optional(),
    AGENT_KERNEL_LOG_LEVEL: z.string().optional(),
    AWS_LAMBDA_LOG_LEVEL: z.string().optional(),
    AGENT_KERNEL_TRACE_SAMPLE_RATE: z.coerce.number().optional(),
  }),
);

/**
 * The configuration from the environment: `cloudwatch` by default on Lambda (when
 * AWS_LAMBDA_FUNCTION_NAME is set), `none` elsewhere unless AGENT_KERNEL_TRACING asks. Checked by
 * hand (config-fast.ts, the schemas' answers and messages): no schema is built for it.
 */
export function tracingConfigFromEnv(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<TracingConfig> = {},
): TracingConfig {
  return tracingConfig(
    fromTracingEnv(handTracingEnv(presentTracingEnv(env)), overrides) as z.input<
      typeof TracingConfigSchema
    >,
  );
}

/** Validates a configuration built in code, as TracingConfigSchema would. */
export function tracingConfig(config: z.input<typeof TracingConfigSchema>): TracingConfig {
  return handTracingConfig(config) as TracingConfig;
}
