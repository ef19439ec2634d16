import type { OtelPreset } from './config.js';
import { TracingConfigInvalid } from './errors.js';

/** Where one OTel preset sends its spans: an OTLP/HTTP traces URL and its headers. */
export interface OtlpTarget {
  readonly preset: OtelPreset;
  readonly url: string;
  readonly headers: Record<string, string>;
}

type Env = Record<string, string | undefined>;

const LANGFUSE_CLOUD = 'https://cloud.langfuse.com';
const TRACELOOP_CLOUD = 'https://api.traceloop.com';

/** The OTLP/HTTP target of each preset, from the variables its vendor documents. */
export function otlpTargets(presets: readonly OtelPreset[], env: Env): OtlpTarget[] {
  return presets.map((preset) => TARGETS[preset](env));
}

const TARGETS: Record<OtelPreset, (env: Env) => OtlpTarget> = {
  otlp: (env) => ({
    preset: 'otlp',
    url:
      value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ??
      `${trimSlash(value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') ?? 'http://localhost:4318')}/v1/traces`,
    headers: parseOtlpHeaders(
      value(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') ?? value(env, 'OTEL_EXPORTER_OTLP_HEADERS'),
    ),
  }),
  // Langfuse ingests OTLP at /api/public/otel with Basic auth from the project's key pair.
  langfuse: (env) => {
    const publicKey = required(env, 'LANGFUSE_PUBLIC_KEY', 'langfuse');
    const secretKey = required(env, 'LANGFUSE_SECRET_KEY', 'langfuse');
    const base = value(env, 'LANGFUSE_BASE_URL') ?? value(env, 'LANGFUSE_HOST') ?? LANGFUSE_CLOUD;
    const basic = Buffer.from(`${publicKey}:${secretKey}`).toString('base64');
    return {
      preset: 'langfuse',
      url: `${trimSlash(base)}/api/public/otel/v1/traces`,
      headers: { Authorization: `Basic ${basic}` },
    };
  },
  // Logfire takes the write token as the Authorization header; the token names its region.
  logfire: (env) => {
    const token = required(env, 'LOGFIRE_TOKEN', 'logfire');
    const region = /^pylf_v\d+_(us|eu)_/.exec(token)?.[1] ?? 'us';
    const base = value(env, 'LOGFIRE_BASE_URL') ?? `https://logfire-${region}.pydantic.dev`;
    return {
      preset: 'logfire',
      url: `${trimSlash(base)}/v1/traces`,
      headers: { Authorization: token },
    };
  },
  // Traceloop's cloud (or any OpenLLMetry collector) with a bearer key when one is given.
  openllmetry: (env) => {
    const key = value(env, 'TRACELOOP_API_KEY');
    const base = value(env, 'TRACELOOP_BASE_URL') ?? TRACELOOP_CLOUD;
    return {
      preset: 'openllmetry',
      url: `${trimSlash(base)}/v1/traces`,
      headers: {
        ...parseOtlpHeaders(value(env, 'TRACELOOP_HEADERS')),
        ...(key ? { Authorization: `Bearer ${key}` } : {}),
      },
    };
  },
};

/** `k1=v1,k2=v2` with URL-encoded values, as the OTel specification defines the variable. */
export function parseOtlpHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of raw?.split(',') ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).trim();
    try {
      headers[name] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      throw new TracingConfigInvalid(`OTEL_EXPORTER_OTLP_HEADERS: bad value for "${name}"`);
    }
  }
  return headers;
}

function value(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

function required(env: Env, name: string, preset: string): string {
  const v = value(env, name);
  if (!v) throw new TracingConfigInvalid(`${name}: required by the ${preset} backend`);
  return v;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
