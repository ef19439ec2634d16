import { GetAccountSettingsCommand, LambdaClient } from '@aws-sdk/client-lambda';
import {
  DescribeSecretCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import type { AccountApi, SecretState } from './preflight.js';

/**
 * The preflight's questions through the real SDK clients, with the deployer's credentials and
 * region (the default provider chain: AWS_PROFILE, AWS_REGION, …; AWS_ENDPOINT_URL* honoured,
 * which is how the tests point them at a stand-in). Reads only: DescribeSecret (never the
 * value), GetParameter without decryption, Lambda GetAccountSettings.
 */
export function awsAccountApi(): AccountApi & { destroy(): void } {
  const secrets = new SecretsManagerClient({});
  const ssm = new SSMClient({});
  const lambda = new LambdaClient({});
  return {
    async describeSecret(name: string): Promise<SecretState> {
      try {
        const found = await secrets.send(new DescribeSecretCommand({ SecretId: name }));
        const tags = Object.fromEntries(
          (found.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? '']),
        );
        return {
          exists: true,
          deleted: found.DeletedDate !== undefined,
          tags,
          ...(found.KmsKeyId ? { kmsKeyId: found.KmsKeyId } : {}),
        };
      } catch (err) {
        if (err instanceof ResourceNotFoundException) return { exists: false };
        throw err;
      }
    },
    async parameterExists(name: string): Promise<boolean> {
      try {
        await ssm.send(new GetParameterCommand({ Name: name, WithDecryption: false }));
        return true;
      } catch (err) {
        if (err instanceof ParameterNotFound) return false;
        throw err;
      }
    },
    async lambdaConcurrency() {
      const settings = await lambda.send(new GetAccountSettingsCommand({}));
      const limit = settings.AccountLimit?.ConcurrentExecutions ?? 0;
      return { limit, unreserved: settings.AccountLimit?.UnreservedConcurrentExecutions ?? limit };
    },
    destroy() {
      secrets.destroy();
      ssm.destroy();
      lambda.destroy();
    },
  };
}
