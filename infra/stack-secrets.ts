import { Aws, RemovalPolicy, type Stack, Tags, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { KernelConfig } from './config.js';
import { OWNER_TAG } from './deploy-config.js';

// The stack's secrets: the development JWT key and the KMS grants of customer-managed keys.

/** The development JWT secret, referenced once however many functions verify tokens. */
export function jwtSecret(stack: Stack, config: KernelConfig, secretName: string): ISecret {
  const found = stack.node.tryFindChild('JwtSecret') as ISecret | undefined;
  if (found) return found;
  if (config.auth.mode !== 'hs256' || !config.auth.create) {
    return Secret.fromSecretNameV2(stack, 'JwtSecret', secretName);
  }
  // jwtSecret=create: a random value nobody typed; mint-token.ts reads it by name. The tag
  // tells the preflight the secret is this stack's, not one a deploy would collide with.
  const secret = new Secret(stack, 'JwtSecret', {
    secretName,
    description: 'HS256 key of development tokens (agent kernel authorizer)',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy: RemovalPolicy.DESTROY,
  });
  Tags.of(secret).add(OWNER_TAG, stack.stackName);
  Validations.of(secret).acknowledge(
    {
      id: 'AwsSolutions-SMG4',
      reason:
        'A development HS256 key: rotating it would invalidate every token at once; production stacks use authMode=jwks.',
    },
    {
      id: 'Serverless-SecretsManagerRotation',
      reason: 'A development HS256 key (see AwsSolutions-SMG4).',
    },
  );
  return secret;
}

/** kms:Decrypt on the secrets' customer-managed keys, through Secrets Manager and SSM only. */
export function grantSecretKeys(fn: IFunction, config: KernelConfig): void {
  if (config.secretKmsKeyArns.length === 0) return;
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['kms:Decrypt'],
      resources: [...config.secretKmsKeyArns],
      conditions: {
        StringEquals: {
          'kms:ViaService': [
            `secretsmanager.${Aws.REGION}.${Aws.URL_SUFFIX}`,
            `ssm.${Aws.REGION}.${Aws.URL_SUFFIX}`,
          ],
        },
      },
    }),
  );
}
