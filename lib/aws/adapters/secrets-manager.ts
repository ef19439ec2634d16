import { MissingDependency } from '../../core/errors.js';
import { importPeer } from '../../core/peer.js';
import type { Config } from '../wiring/config.js';

/** Where a secret lives: a Secrets Manager secret or an SSM SecureString parameter (by name). */
export type SecretSource =
  | { readonly kind: 'secrets-manager'; readonly name: string }
  | { readonly kind: 'ssm'; readonly name: string };

export type SecretFetcher = (
  source: SecretSource,
  client: Record<string, unknown>,
) => Promise<string | undefined>;

export function describeSource(source: SecretSource): string {
  return source.kind === 'secrets-manager'
    ? `Secrets Manager secret "${source.name}"`
    : `SSM parameter "${source.name}"`;
}

export type SecretProblem = 'model-secret-unavailable' | 'model-secret-invalid';

/**
 * A secret's text through the real SDK client, loaded on first use: Secrets Manager unless the
 * caller passes a `fetch` that knows SSM too (secrets.ts, for the model key), so the authorizer
 * and every function's tracing secret do not bundle the SSM client. Errors come from `fail`, so
 * each caller names its own secret; messages never quote the value.
 */
export async function readSecretText(
  source: SecretSource,
  config: Pick<Config, 'AWS_REGION' | 'SECRETS_MANAGER_ENDPOINT' | 'SSM_ENDPOINT'>,
  fail: (code: SecretProblem, message: string) => Error,
  what = 'model key',
  fetch: SecretFetcher = fetchFromSecretsManager,
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
    text = await fetch(source, client);
  } catch (err) {
    // The client package not installed: its own error names the package and the command.
    if (err instanceof MissingDependency) throw err;
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

/** Secrets Manager only: a module that never reads SSM does not bundle its client. */
export async function fetchFromSecretsManager(
  source: SecretSource,
  client: Record<string, unknown>,
): Promise<string | undefined> {
  const sm = await importPeer(
    () => import('./secrets-manager-client.js'),
    'Reading a secret from AWS Secrets Manager',
  );
  const secrets = new sm.SecretsManagerClient(client);
  try {
    const out = await secrets.send(new sm.GetSecretValueCommand({ SecretId: source.name }));
    return out.SecretString;
  } finally {
    secrets.destroy();
  }
}
