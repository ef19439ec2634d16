import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { TracingSettings } from './config.js';

/**
 * Every function traces alike: AGENT_KERNEL_TRACING and the presets' endpoints in its
 * environment, and read access to the presets' secret, whose name only it is given.
 */
export function wireTracing(scope: Construct, fn: LambdaFunction, tracing: TracingSettings): void {
  for (const [name, value] of Object.entries(tracing.environment)) fn.addEnvironment(name, value);
  if (!tracing.secretName) return;
  const found = scope.node.tryFindChild('TracingSecret') as ReturnType<
    typeof Secret.fromSecretNameV2
  >;
  (found ?? Secret.fromSecretNameV2(scope, 'TracingSecret', tracing.secretName)).grantRead(fn);
}
