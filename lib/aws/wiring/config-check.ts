import { Redactor } from '../../tracing/redact.js';
import { CONFIG_KEYS, handConfig, type ParsedConfig } from './config-fast.js';
import type { Config, ConfigKey } from './config-schema.js';
import { ConfigError } from './errors.js';

/**
 * Everything the functions read from the environment (config-schema.ts), checked once at cold
 * start without zod (config-fast.ts gives the schema's answer and messages). Each function names
 * the variables it cannot work without (`require`), so a missing one fails with its name.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  require: readonly ConfigKey[] = [],
): Config {
  return checkedConfig(handConfig(presentConfig(env)), require);
}

/** Empty strings are what CloudFormation leaves for unset values: treat them as absent. */
export function presentConfig(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(([key, value]) => value !== '' && CONFIG_KEYS.has(key)),
  ) as Record<string, string>;
}

/** The checks after the schema: required variables and the rules between variables. */
export function checkedConfig(parsed: ParsedConfig, require: readonly ConfigKey[]): Config {
  const problems: { variable: string; message: string }[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push({ variable: String(issue.path[0] ?? '?'), message: issue.message });
    }
    throw new ConfigError(problems);
  }
  for (const key of require) {
    if (parsed.data[key] === undefined) problems.push({ variable: key, message: 'is required' });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  if (parsed.data.MODEL_SECRET_NAME && parsed.data.MODEL_SECRET_PARAMETER) {
    throw bothModelSecretsError();
  }
  const keyEnv = modelKeyVariableProblem(parsed.data.MODEL_API_KEY_ENV);
  if (keyEnv) throw new ConfigError([{ variable: 'MODEL_API_KEY_ENV', message: keyEnv }]);
  if (
    parsed.data.AUTH_MODE === 'hs256' &&
    !parsed.data.JWT_SECRET &&
    !parsed.data.JWT_SECRET_NAME
  ) {
    throw new ConfigError([
      { variable: 'JWT_SECRET', message: 'is required when AUTH_MODE=hs256 (or JWT_SECRET_NAME)' },
    ]);
  }
  return parsed.data;
}

/** The model secret comes from a Secrets Manager secret or an SSM parameter, not both. */
export function bothModelSecretsError(): ConfigError {
  return new ConfigError([
    { variable: 'MODEL_SECRET_NAME', message: 'is set' },
    {
      variable: 'MODEL_SECRET_PARAMETER',
      message: 'is set too (the model secret comes from one of them)',
    },
  ]);
}

const RESERVED_VARIABLE = /^(?:AWS_|_X_AMZN|LAMBDA_)/;
const probe = new Redactor();

/**
 * Why `name` may not receive a value of the model secret, or undefined when it may: a plain
 * upper-case name, not one Lambda or the kernel reads, and one the tracing redactor treats as a
 * secret (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, …), so `secretsFromEnv` hides its value.
 */
export function modelKeyVariableProblem(name: string): string | undefined {
  if (RESERVED_VARIABLE.test(name)) return 'is reserved (AWS_*, _X_AMZN*, LAMBDA_*)';
  if (!/^[A-Z][A-Z0-9_]*$/.test(name)) return 'is not a variable name (A-Z, 0-9, _)';
  if (CONFIG_KEYS.has(name)) return 'is a variable of the kernel itself';
  if (!probe.isSensitiveKey(name)) {
    return 'is not a secret-shaped name (end it in _API_KEY, _TOKEN, _SECRET or _PASSWORD)';
  }
  return undefined;
}
