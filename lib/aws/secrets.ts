import * as z from 'zod';
import { bothModelSecretsError, type Config, modelKeyVariableProblem } from './config.js';
import { ConfigError, ModelSecretError } from './errors.js';

/**
 * The model provider key, read once per cold start from where the stack keeps it (a Secrets
 * Manager secret or an SSM SecureString parameter; the environment holds only its name) and put
 * where model SDKs look for it: environment variables. A plain value goes to `MODEL_API_KEY_ENV`
 * (default `OPENAI_API_KEY`); a JSON object maps variable names to values, e.g.
 * `{"OPENAI_API_KEY": "…", "ANTHROPIC_API_KEY": "…"}`. Every name must be secret-shaped (see
 * `modelKeyVariableProblem`), so the tracing redactor's `secretsFromEnv` hides every value.
 */
export type ModelSecretSource =
  | { readonly kind: 'secrets-manager'; readonly name: string }
  | { readonly kind: 'ssm'; readonly name: string };

export interface ModelSecretLoaded {
  readonly source: ModelSecretSource;
  /** The variables that were set (names only: values never leave this module but in `env`). */
  readonly variables: readonly string[];
}

/** Where the configuration says the secret is, if anywhere. */
export function modelSecretSource(config: Config): ModelSecretSource | undefined {
  if (config.MODEL_SECRET_NAME && config.MODEL_SECRET_PARAMETER) throw bothModelSecretsError();
  if (config.MODEL_SECRET_NAME) return { kind: 'secrets-manager', name: config.MODEL_SECRET_NAME };
  if (config.MODEL_SECRET_PARAMETER) return { kind: 'ssm', name: config.MODEL_SECRET_PARAMETER };
  return undefined;
}

/**
 * Reads the model secret (when one is configured) and sets its variables in `env`, overwriting
 * values already there. Throws `ModelSecretError` (or `ConfigError`) naming the secret.
 */
export async function loadModelSecret(
  config: Config,
  env: Record<string, string | undefined> = process.env,
): Promise<ModelSecretLoaded | undefined> {
  const source = modelSecretSource(config);
  if (!source) return undefined;
  const values = parseModelSecret(await readModelSecret(source, config), source, config);
  for (const [name, value] of Object.entries(values)) env[name] = value;
  return { source, variables: Object.keys(values) };
}

export function describeSource(source: ModelSecretSource): string {
  return source.kind === 'secrets-manager'
    ? `Secrets Manager secret "${source.name}"`
    : `SSM parameter "${source.name}"`;
}

/** The secret's text through the real SDK client (loaded only when a secret is configured). */
async function readModelSecret(source: ModelSecretSource, config: Config): Promise<string> {
  return readSecretText(source, config, (code, message) => new ModelSecretError(code, message));
}

export type SecretProblem = 'model-secret-unavailable' | 'model-secret-invalid';

/**
 * A secret's text from Secrets Manager or SSM (the real SDK client, loaded on first use). Errors
 * come from `fail`, so each caller names its own secret; messages never quote the value.
 */
export async function readSecretText(
  source: ModelSecretSource,
  config: Pick<Config, 'AWS_REGION' | 'SECRETS_MANAGER_ENDPOINT' | 'SSM_ENDPOINT'>,
  fail: (code: SecretProblem, message: string) => Error,
  what = 'model key',
): Promise<string> {
  const endpoint =
    source.kind === 'secrets-manager' ? config.SECRETS_MANAGER_ENDPOINT : config.SSM_ENDPOINT;
  const client = {
    region: config.AWS_REGION,
    // An emulator accepts any signature, but the SDK still needs credentials to sign.
    ...(endpoint
      ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  };
  let text: string | undefined;
  try {
    text = await fetchSecret(source, client);
  } catch (err) {
    // Only the error's name and message (AWS's own words): no `cause`, whose raw response could
    // hold more than a log should see.
    const { name, message } = err instanceof Error ? err : { name: 'Error', message: String(err) };
    throw fail(
      'model-secret-unavailable',
      `Could not read the ${what} from the ${describeSource(source)}: ${name}: ${message}`,
    );
  }
  if (text === undefined || text.trim() === '') {
    throw fail(
      'model-secret-invalid',
      `The ${describeSource(source)} holds no text (a binary or empty secret cannot be a ${what}).`,
    );
  }
  return text;
}

async function fetchSecret(
  source: ModelSecretSource,
  client: Record<string, unknown>,
): Promise<string | undefined> {
  if (source.kind === 'secrets-manager') {
    const sm = await import('@aws-sdk/client-secrets-manager');
    const secrets = new sm.SecretsManagerClient(client);
    try {
      const out = await secrets.send(new sm.GetSecretValueCommand({ SecretId: source.name }));
      return out.SecretString;
    } finally {
      secrets.destroy();
    }
  }
  const ssm = await import('@aws-sdk/client-ssm');
  const parameters = new ssm.SSMClient(client);
  try {
    const out = await parameters.send(
      new ssm.GetParameterCommand({ Name: source.name, WithDecryption: true }),
    );
    return out.Parameter?.Value;
  } finally {
    parameters.destroy();
  }
}

const SecretMap = z.record(z.string(), z.string());

/**
 * `{ variable: value }` from the secret's text: a JSON object as it is, anything else as the
 * value of `MODEL_API_KEY_ENV`. Error messages name variables, never values (and never quote
 * `JSON.parse`, whose message shows the text).
 */
export function parseModelSecret(
  text: string,
  source: ModelSecretSource,
  config: Pick<Config, 'MODEL_API_KEY_ENV'>,
): Record<string, string> {
  const trimmed = text.trim();
  const invalid = (message: string) =>
    new ModelSecretError('model-secret-invalid', `The ${describeSource(source)} ${message}`);
  if (!trimmed.startsWith('{')) {
    const problem = modelKeyVariableProblem(config.MODEL_API_KEY_ENV);
    if (problem) throw new ConfigError([{ variable: 'MODEL_API_KEY_ENV', message: problem }]);
    return { [config.MODEL_API_KEY_ENV]: trimmed };
  }
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    throw invalid('starts with "{" but is not valid JSON.');
  }
  const parsed = SecretMap.safeParse(json);
  if (!parsed.success) {
    const keys = parsed.error.issues.map((issue) => String(issue.path[0] ?? '(root)'));
    throw invalid(
      `must be a JSON object of strings; not a string: ${[...new Set(keys)].join(', ')}.`,
    );
  }
  const entries = Object.entries(parsed.data).map(([name, value]) => [name, value.trim()] as const);
  if (entries.length === 0) throw invalid('is an empty JSON object.');
  const problems = entries.flatMap(([name, value]) => {
    const problem = modelKeyVariableProblem(name) ?? (value === '' ? 'is empty' : undefined);
    // A name is not secret, but cap it: a value pasted as a key should not travel far.
    return problem ? [`${JSON.stringify(name.slice(0, 64))} ${problem}`] : [];
  });
  if (problems.length > 0) throw invalid(`cannot set ${problems.join('; ')}.`);
  return Object.fromEntries(entries);
}
