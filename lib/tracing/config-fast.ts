import {
  type HandIssue,
  invalidType,
  numberIssues,
  oneOf,
  stringIssues,
  unrecognizedKeys,
} from '../core/schema-words.js';
import { TracingConfigInvalid } from './errors.js';

/**
 * The tracing configuration checked by hand, completely: each check takes what config.ts's
 * schemas take, gives what they give and fails with their first issue, worded as they word it
 * (test/unit/tracing/config-fast.test.ts compares both), so no function needs zod for it.
 */

const LEVELS: readonly string[] = ['debug', 'info', 'warn', 'error'];
const PRESETS: readonly string[] = ['otlp', 'langfuse', 'logfire', 'openllmetry'];
const BACKENDS = new Set<string>(['cloudwatch', 'none', ...PRESETS]);
const PRINCIPAL = ['hash', 'omit', 'plain'];
const BOOLS: Record<string, boolean> = { true: true, false: false, '1': true, '0': false };

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

type Check = (value: string) => { value: unknown } | { message: string };
const nonEmpty: Check = (value) =>
  value.length > 0 ? { value } : { message: 'Too small: expected string to have >=1 characters' };
const any: Check = (value) => ({ value });
const bool: Check = (value) =>
  Object.hasOwn(BOOLS, value) ? { value: BOOLS[value] } : { message: oneOf(Object.keys(BOOLS)) };
const CHECKS: Record<keyof TracingEnv, Check> = {
  AWS_LAMBDA_FUNCTION_NAME: nonEmpty,
  AGENT_KERNEL_TRACING: (value) => {
    const names = [...new Set(value.split(',').map((name) => name.trim().toLowerCase()))];
    const unknown = names.find((name) => !BACKENDS.has(name));
    return unknown !== undefined || (names.includes('none') && names.length > 1)
      ? { message: `"${unknown ?? value}" is not a tracing backend` }
      : { value: names };
  },
  AGENT_KERNEL_TRACE_PRINCIPAL: (value) =>
    PRINCIPAL.includes(value) ? { value } : { message: oneOf(PRINCIPAL) },
  AGENT_KERNEL_SERVICE_NAME: nonEmpty,
  AGENT_KERNEL_METRICS_NAMESPACE: nonEmpty,
  AWS_XRAY_DAEMON_ADDRESS: (value) => {
    const udp = value.split(/\s+/).find((part) => part.startsWith('udp:')) ?? value.trim();
    const match = /^(?:udp:)?([^\s:]+|\[[^\]]+\]):(\d{1,5})$/.exec(udp);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65_535) return { message: `"${value}" is not host:port` };
    return { value: { host: (match[1] as string).replace(/^\[|\]$/g, ''), port } };
  },
  AGENT_KERNEL_XRAY: bool,
  AGENT_KERNEL_TRACE_PAYLOADS: bool,
  AGENT_KERNEL_LOG_LEVEL: any,
  AWS_LAMBDA_LOG_LEVEL: any,
  // As z.coerce.number(): Number() of the text.
  AGENT_KERNEL_TRACE_SAMPLE_RATE: (value) => {
    const rate = Number(value);
    return Number.isFinite(rate) ? { value: rate } : { message: invalidType('number', rate) };
  },
};

/** EnvSchema's answer for `present` (non-empty variables); its first issue is thrown. */
export function handTracingEnv(present: Record<string, string | undefined>): TracingEnv {
  const env: Record<string, unknown> = {};
  for (const [key, check] of Object.entries(CHECKS)) {
    const raw = present[key];
    if (raw === undefined) continue;
    const checked = check(raw);
    if ('message' in checked) throw new TracingConfigInvalid(`${key}: ${checked.message}`);
    env[key] = checked.value;
  }
  return env as TracingEnv;
}

type Field = (value: unknown) => { value: unknown; issues: HandIssue[] };
const ok = (value: unknown) => ({ value, issues: [] });
const member =
  (values: readonly string[], fallback?: string): Field =>
  (value) => {
    if (value === undefined && fallback !== undefined) return ok(fallback);
    return values.includes(value as string)
      ? ok(value)
      : { value, issues: [{ path: [], message: oneOf(values) }] };
  };
const string =
  (max: number): Field =>
  (value) => ({ value, issues: stringIssues(value, 1, max) });
const boolean: Field = (value) =>
  typeof value === 'boolean'
    ? ok(value)
    : { value, issues: [{ path: [], message: invalidType('boolean', value) }] };
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const otel: Field = (value) => {
  if (value === undefined) return ok([]);
  if (!Array.isArray(value))
    return { value, issues: [{ path: [], message: invalidType('array', value) }] };
  const issues = value.flatMap((name, i) =>
    PRESETS.includes(name) ? [] : [{ path: [i], message: oneOf(PRESETS) }],
  );
  return { value: [...value], issues };
};
// z.object (not strict): other keys are dropped.
const daemon: Field = (value) => {
  if (!isObject(value))
    return { value, issues: [{ path: [], message: invalidType('object', value) }] };
  const { host, port } = value;
  const issues = [
    ...stringIssues(host, 1).map((issue) => ({ ...issue, path: ['host'] })),
    ...numberIssues(port, { int: true, min: 1, max: 65_535 }).map((issue) => ({
      ...issue,
      path: ['port'],
    })),
  ];
  return { value: { host, port }, issues };
};
const FIELDS: Record<string, Field> = {
  backend: member(['cloudwatch', 'none']),
  otel,
  principal: member(PRINCIPAL, 'hash'),
  serviceName: string(200),
  namespace: string(255),
  daemon,
  xray: boolean,
  capturePayloads: boolean,
  logLevel: member(LEVELS),
  sampleRate: (value) => ({ value, issues: numberIssues(value, { min: 0, max: 1 }) }),
};

/**
 * TracingConfigSchema's answer for `config` (typed by config.ts, which this file does not import:
 * no import circle); its first issue is thrown, as config.ts words it.
 */
export function handTracingConfig(config: unknown): Record<string, unknown> {
  if (!isObject(config)) throw invalid({ path: [], message: invalidType('object', config) });
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(FIELDS)) {
    const { value, issues } = field(config[key]);
    if (issues[0]) throw invalid({ ...issues[0], path: [key, ...issues[0].path] });
    out[key] = value;
  }
  const extra = Object.keys(config).filter((key) => !Object.hasOwn(FIELDS, key));
  if (extra.length > 0) throw invalid({ path: [], message: unrecognizedKeys(extra) });
  return out;
}

function invalid(issue: HandIssue): TracingConfigInvalid {
  return new TracingConfigInvalid(`${issue.path.join('.') || '(root)'}: ${issue.message}`);
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
