import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SignJWT } from 'jose';

/**
 * `npx tsx infra/mint-token.ts <user> [--secret <name>] [--hours <n>]`: an HS256 token for the
 * deployed development authorizer, signed with the secret it reads (your AWS credentials must
 * be allowed secretsmanager:GetSecretValue on it). Prints the token only.
 */
async function main(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const option = (name: string) => {
    const i = rest.indexOf(`--${name}`);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  if (!sub || sub.startsWith('--')) {
    throw new Error('usage: npx tsx infra/mint-token.ts <user> [--secret <name>] [--hours <n>]');
  }
  const secretId = option('secret') ?? 'agent-kernel/dev-jwt-secret';
  const hours = Number(option('hours') ?? '1');
  const client = new SecretsManagerClient({});
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  client.destroy();
  if (!SecretString) throw new Error(`${secretId} holds no text`);
  const token = await new SignJWT({ sub })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(`${hours}h`)
    .sign(new TextEncoder().encode(SecretString.trim()));
  process.stdout.write(`${token}\n`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
