import { parseArgs } from 'node:util';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SignJWT } from 'jose';

/**
 * `npx tsx infra/mint-token.ts <user> [--secret <name>] [--hours <n>] [--issuer <iss>]
 * [--audience <aud>]`: an HS256 token for the deployed development authorizer, signed with the
 * secret it reads (your AWS credentials must be allowed secretsmanager:GetSecretValue on it);
 * it always expires (the authorizer refuses a token without `exp`); `--issuer` / `--audience`
 * when the stack sets `jwtIssuer` / `jwtAudience`. Prints the token only.
 */
const USAGE =
  'usage: npx tsx infra/mint-token.ts <user> [--secret <name>] [--hours <n>] [--issuer <iss>] [--audience <aud>]';

/** A wrong command line: its message (`error: …`), the usage, exit code 2. */
class UsageError extends Error {
  readonly code = 'invalid-argument';
}

async function main(args: string[]): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (err) {
    throw new UsageError((err as Error).message.split(/\. (?=To specify)/)[0]);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [sub, ...extra] = positionals;
  if (!sub) throw new UsageError('no <user>');
  if (extra.length > 0) throw new UsageError(`unexpected: ${extra[0]}`);
  const hours = Number(values.hours ?? '1');
  if (!(hours > 0)) throw new UsageError(`--hours ${values.hours}: a positive number of hours`);
  const secretId = values.secret ?? 'agent-kernel/dev-jwt-secret';
  const option = (name: 'issuer' | 'audience') => values[name];
  const client = new SecretsManagerClient({});
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  client.destroy();
  if (!SecretString) throw new Error(`${secretId} holds no text`);
  const jwt = new SignJWT({ sub })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(`${hours}h`);
  const issuer = option('issuer');
  const audience = option('audience');
  if (issuer) jwt.setIssuer(issuer);
  if (audience) jwt.setAudience(audience);
  const token = await jwt.sign(new TextEncoder().encode(SecretString.trim()));
  process.stdout.write(`${token}\n`);
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      secret: { type: 'string' },
      hours: { type: 'string' },
      issuer: { type: 'string' },
      audience: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof UsageError) {
    process.stderr.write(`error: ${message} (${err.code})\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  process.stderr.write(`${message}\n`);
  process.exitCode = 1;
});
