import * as z from 'zod';
import { importPeer } from '../../core/peer.js';
import {
  describeSource,
  fetchFromSecretsManager,
  readSecretText,
  type SecretSource,
} from '../adapters/secrets-manager.js';
import { bothModelSecretsError, type Config, modelKeyVariableProblem } from './config.js';
import { ConfigError, ModelSecretError } from './errors.js';

export { describeSource, readSecretText, type SecretProblem } from '../adapters/secrets-manager.js';

/**
 * The model provider key, read once per cold start from where the stack keeps it (a Secrets
 * Manager secret or an SSM SecureString parameter; the environment holds only its name) and put
 * where model SDKs look for it: environment variables. A plain value goes to `MODEL_API_KEY_ENV`
 * (default `OPENAI_API_KEY`); a JSON object maps variable names to values, e.g.
 * `{"OPENAI_API_KEY": "…", "ANTHROPIC_API_KEY": "…"}`. Every name must be secret-shaped (see
 * `modelKeyVariableProblem`), so the tracing redactor's `secretsFromEnv` hides every value.
 */
export type ModelSecretSource = SecretSource;

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

/** The secret's text through the real SDK client (loaded only when a secret is configured). */
async function readModelSecret(source: ModelSecretSource, config: Config): Promise<string> {
  return readSecretText(
    source,
    config,
    (code, message) => new ModelSecretError(code, message),
    'model key',
    fetchSecret,
  );
}

/** Both kinds: only the model key may live in SSM. */
async function fetchSecret(
  source: ModelSecretSource,
  client: Record<string, unknown>,
): Promise<string | undefined> {
  if (source.kind === 'secrets-manager') return fetchFromSecretsManager(source, client);
  // A bundle for a key in Secrets Manager leaves the SSM client out (infra/bundling.ts).
  if (process.env.AGENT_KERNEL_BUNDLE_SSM !== 'false') return fetchFromSsm(source, client);
  throw ssmNotBundled();
}

async function fetchFromSsm(
  source: ModelSecretSource,
  client: Record<string, unknown>,
): Promise<string | undefined> {
  const ssm = await importPeer(
    () => import('@aws-sdk/client-ssm'),
    'Reading the model key from SSM Parameter Store',
  );
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

function ssmNotBundled(): ConfigError {
  return new ConfigError([
    {
      variable: 'MODEL_SECRET_PARAMETER',
      message:
        'is set, but this bundle was built without the SSM client (deploy with -c modelParameterName)',
    },
  ]);
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
