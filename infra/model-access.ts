import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import type { KernelConfig } from './config.js';

/**
 * A function that runs agents gets the model key's *name* (Secrets Manager or SSM) with read
 * access to it, never the value, and `bedrock:InvokeModel*` on the configured model ARNs.
 */
export function grantModelAccess(
  scope: Construct,
  fn: IFunction,
  config: KernelConfig,
  env: (name: string, value: string) => void,
): void {
  const secret = config.modelSecret;
  if (secret && 'secretName' in secret) {
    env('MODEL_SECRET_NAME', secret.secretName);
    Secret.fromSecretNameV2(scope, `ModelSecret${fn.node.addr}`, secret.secretName).grantRead(fn);
  } else if (secret) {
    env('MODEL_SECRET_PARAMETER', secret.parameterName);
    StringParameter.fromStringParameterName(
      scope,
      `ModelParameter${fn.node.addr}`,
      secret.parameterName,
    ).grantRead(fn);
  }
  if (config.bedrockModelArns.length > 0) {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
        resources: [...config.bedrockModelArns],
      }),
    );
  }
}
