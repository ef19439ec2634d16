import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SignJWT } from 'jose';

/**
 * `npx tsx infra/mint-token.ts <user> [--secret <name>] [--hours <n>] [--issuer <iss>]
 * [--audience <aud>]`: an HS256 token for the deployed development authorizer, signed with the
 * secret it reads (your AWS credentials must be allowed secretsmanager:GetSecretValue on it);
 * it always expires (the authorizer refuses a token without `exp`); `--issuer` / `--audience`
 * when the stack sets `jwtIssuer` / `jwtAudience`. Prints the token only.
 */
async function main(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const option = (name: string) => {
    const i = rest.indexOf(`--${name}`);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  if (!sub || sub.startsWith('--')) {
    throw new Error(
      'usage: npx tsx infra/mint-token.ts <user> [--secret <name>] [--hours <n>] [--issuer <iss>] [--audience <aud>]',
    );
  }
  const secretId = option('secret') ?? 'agent-kernel/dev-jwt-secret';
  const hours = Number(option('hours') ?? '1');
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

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
