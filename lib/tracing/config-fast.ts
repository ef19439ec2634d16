/**
 * The tracing configuration checked by hand, so a cold start builds no zod schema (config.ts
 * keeps the schemas, built on first use, for anything unusual: their answer and messages stand).
 * Each check accepts only what the schema certainly accepts and gives what it would give;
 * test/unit/tracing/config-fast.test.ts compares both.
 */

const LEVELS: readonly string[] = ['debug', 'info', 'warn', 'error'];
const PRESETS: readonly string[] = ['otlp', 'langfuse', 'logfire', 'openllmetry'];
const BACKENDS = new Set<string>(['cloudwatch', 'none', ...PRESETS]);
const PRINCIPAL = ['hash', 'omit', 'plain'];
const BOOLS: Record<string, boolean> = { true: true, '1': true, false: false, '0': false };
const RATE = /^[0-9]{1,3}(?:\.[0-9]{1,9})?$/;

/** The environment variables tracingConfigFromEnv reads, as its EnvSchema would give them. */
export interface TracingEnv {
  AWS_LAMBDA_FUNCTION_NAME?: string;
  AGENT_KERNEL_TRACING?: string[];
  AGENT_KERNEL_TRACE_PRINCIPAL?: 'hash' | 'omit' | 'plain';
  AGENT_KERNEL_SERVICE_NAME?: string;
  AGENT_KERNEL_METRICS_NAMESPACE?: string;
  AWS_XRAY_DAEMON_ADDRESS?: { host: string; port: number };
  AGENT_KERNEL_XRAY?: boolean;
  AGENT_KERNEL_TRACE_PAYLOADS?: boolean;
  AGENT_KERNEL_LOG_LEVEL?: string;
  AWS_LAMBDA_LOG_LEVEL?: string;
  AGENT_KERNEL_TRACE_SAMPLE_RATE?: number;
}

type Check = (value: string) => { value: unknown } | undefined;
const nonEmpty: Check = (value) => (value.length > 0 ? { value } : undefined);
const any: Check = (value) => ({ value });
const bool: Check = (value) => (value in BOOLS ? { value: BOOLS[value] } : undefined);
const CHECKS: Record<keyof TracingEnv, Check> = {
  AWS_LAMBDA_FUNCTION_NAME: nonEmpty,
  AGENT_KERNEL_TRACING: (value) => {
    const names = [...new Set(value.split(',').map((name) => name.trim().toLowerCase()))];
    const bad = names.some((name) => !BACKENDS.has(name));
    return bad || (names.includes('none') && names.length > 1) ? undefined : { value: names };
  },
  AGENT_KERNEL_TRACE_PRINCIPAL: (value) => (PRINCIPAL.includes(value) ? { value } : undefined),
  AGENT_KERNEL_SERVICE_NAME: nonEmpty,
  AGENT_KERNEL_METRICS_NAMESPACE: nonEmpty,
  AWS_XRAY_DAEMON_ADDRESS: (value) => {
    const udp = value.split(/\s+/).find((part) => part.startsWith('udp:')) ?? value.trim();
    const match = /^(?:udp:)?([^\s:]+|\[[^\]]+\]):(\d{1,5})$/.exec(udp);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65_535) return undefined;
    return { value: { host: (match[1] as string).replace(/^\[|\]$/g, ''), port } };
  },
  AGENT_KERNEL_XRAY: bool,
  AGENT_KERNEL_TRACE_PAYLOADS: bool,
  AGENT_KERNEL_LOG_LEVEL: any,
  AWS_LAMBDA_LOG_LEVEL: any,
  AGENT_KERNEL_TRACE_SAMPLE_RATE: (value) =>
    RATE.test(value) ? { value: Number(value) } : undefined,
};

/** EnvSchema's answer for `present` (non-empty variables), or undefined: ask it. */
export function fastTracingEnv(
  present: Record<string, string | undefined>,
): TracingEnv | undefined {
  const env: Record<string, unknown> = {};
  for (const [key, check] of Object.entries(CHECKS)) {
    const raw = present[key];
    if (raw === undefined) continue;
    const checked = check(raw);
    if (checked === undefined) return undefined;
    env[key] = checked.value;
  }
  return env as TracingEnv;
}

const CONFIG_KEYS = new Set([
  'backend',
  'otel',
  'principal',
  'serviceName',
  'namespace',
  'daemon',
  'xray',
  'capturePayloads',
  'logLevel',
  'sampleRate',
]);
const text = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= max;

/**
 * TracingConfigSchema's answer for `config`, or undefined: ask it (typed by config.ts, which this
 * file does not import: no import circle).
 */
export function fastTracingConfig(
  config: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const { backend, otel = [], principal = 'hash', daemon, sampleRate } = config;
  if (!Object.keys(config).every((key) => CONFIG_KEYS.has(key))) return undefined;
  if (backend !== 'cloudwatch' && backend !== 'none') return undefined;
  if (!Array.isArray(otel) || !otel.every((name) => PRESETS.includes(name))) return undefined;
  if (!PRINCIPAL.includes(principal as string)) return undefined;
  if (!text(config.serviceName, 200) || !text(config.namespace, 255)) return undefined;
  if (typeof daemon !== 'object' || daemon === null) return undefined;
  const { host, port } = daemon as Record<string, unknown>;
  if (Object.keys(daemon).length !== 2 || !text(host, Number.POSITIVE_INFINITY)) return undefined;
  if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65_535)
    return undefined;
  if (typeof config.xray !== 'boolean' || typeof config.capturePayloads !== 'boolean')
    return undefined;
  if (!LEVELS.includes(config.logLevel as string)) return undefined;
  if (typeof sampleRate !== 'number' || !(sampleRate >= 0 && sampleRate <= 1)) return undefined;
  return {
    backend,
    otel: [...otel],
    principal,
    serviceName: config.serviceName,
    namespace: config.namespace,
    daemon: { host, port },
    xray: config.xray,
    capturePayloads: config.capturePayloads,
    logLevel: config.logLevel,
    sampleRate,
  };
}

/** Empty variables count as unset, as the Lambda console leaves them. */
export function presentTracingEnv(
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
}

/**
 * The configuration the variables ask for (`cloudwatch` by default on Lambda, when
 * AWS_LAMBDA_FUNCTION_NAME is set, `none` elsewhere), `overrides` winning; not yet checked.
 */
export function fromTracingEnv(
  e: TracingEnv,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const names = e.AGENT_KERNEL_TRACING ?? [e.AWS_LAMBDA_FUNCTION_NAME ? 'cloudwatch' : 'none'];
  const level = (e.AGENT_KERNEL_LOG_LEVEL ?? e.AWS_LAMBDA_LOG_LEVEL ?? 'info').toLowerCase();
  return {
    backend: names.includes('cloudwatch') ? 'cloudwatch' : 'none',
    otel: PRESETS.filter((preset) => names.includes(preset)),
    principal: e.AGENT_KERNEL_TRACE_PRINCIPAL ?? 'hash',
    serviceName: e.AGENT_KERNEL_SERVICE_NAME ?? e.AWS_LAMBDA_FUNCTION_NAME ?? 'agent-kernel',
    namespace: e.AGENT_KERNEL_METRICS_NAMESPACE ?? 'AgentKernel',
    daemon: e.AWS_XRAY_DAEMON_ADDRESS ?? { host: '127.0.0.1', port: 2000 },
    xray: e.AGENT_KERNEL_XRAY ?? true,
    capturePayloads: e.AGENT_KERNEL_TRACE_PAYLOADS ?? false,
    // Lambda's own levels include trace and fatal: map them onto ours.
    logLevel: level === 'trace' ? 'debug' : level === 'fatal' ? 'error' : level,
    sampleRate: e.AGENT_KERNEL_TRACE_SAMPLE_RATE ?? 1,
    ...overrides,
  };
}
