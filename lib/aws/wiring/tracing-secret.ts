import type { Redactor } from '../../tracing/redact.js';
import { readSecretText } from '../adapters/secrets-manager.js';
import { ConfigError } from './errors.js';

/**
 * The OTel presets' credentials, read once per cold start from the Secrets Manager secret the
 * stack names in AGENT_KERNEL_TRACING_SECRET_NAME (never the values in the environment the
 * function is deployed with): a JSON object of the presets' own variables, e.g.
 * `{"LANGFUSE_PUBLIC_KEY": "pk-lf-…", "LANGFUSE_SECRET_KEY": "sk-lf-…"}`. The values are set in
 * `env` for the OTel backend to read and taught to the redactor first.
 */
export const TRACING_SECRET_VARIABLES = [
  'LANGFUSE_PUBLIC_KEY',
  'LANGFUSE_SECRET_KEY',
  'LOGFIRE_TOKEN',
  'TRACELOOP_API_KEY',
  'TRACELOOP_HEADERS',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
] as const;

const VARIABLE = 'AGENT_KERNEL_TRACING_SECRET_NAME';

/** Reads the secret into `env`; answers the variables set. Errors name keys, never values. */
export async function loadTracingSecret(
  env: Record<string, string | undefined>,
  redactor: Redactor,
): Promise<string[]> {
  const name = env[VARIABLE];
  if (!name) return [];
  const fail = (message: string) => new ConfigError([{ variable: VARIABLE, message }]);
  const text = await readSecretText(
    { kind: 'secrets-manager', name },
    {
      AWS_REGION: env.AWS_REGION || 'us-east-1',
      SECRETS_MANAGER_ENDPOINT: env.SECRETS_MANAGER_ENDPOINT || undefined,
      SSM_ENDPOINT: undefined,
    },
    (_code, message) => fail(message),
    'tracing credentials',
  );
  const values = parseTracingSecret(text, fail);
  for (const value of Object.values(values)) redactor.learn(value);
  Object.assign(env, values);
  return Object.keys(values);
}

function parseTracingSecret(
  text: string,
  fail: (message: string) => Error,
): Record<string, string> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON.parse's message: it quotes the text.
    throw fail("secret is not JSON: it must be a JSON object of the presets' variables");
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw fail("secret must be a JSON object of the presets' variables");
  }
  const allowed = new Set<string>(TRACING_SECRET_VARIABLES);
  const entries = Object.entries(json as Record<string, unknown>);
  const unknown = entries.filter(([key]) => !allowed.has(key)).map(([key]) => key.slice(0, 64));
  const notText = entries.filter(([, v]) => typeof v !== 'string' || v.trim() === '');
  if (unknown.length > 0) {
    throw fail(
      `secret holds ${unknown.map((k) => JSON.stringify(k)).join(', ')}; allowed: ${TRACING_SECRET_VARIABLES.join(', ')}`,
    );
  }
  if (notText.length > 0 || entries.length === 0) {
    const keys = notText.map(([key]) => key).join(', ');
    throw fail(
      entries.length === 0 ? 'secret is an empty object' : `${keys}: not a non-empty string`,
    );
  }
  return Object.fromEntries(entries.map(([key, value]) => [key, (value as string).trim()]));
}
