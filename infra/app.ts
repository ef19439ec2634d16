import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CONTEXT_KEYS, configFromContext } from './config.js';
import { AgentKernelStack } from './stack.js';

// `cdk synth|deploy|destroy` runs this file (cdk.json "app"); context comes from cdk.json or -c.
const app = new App();
const context = Object.fromEntries(CONTEXT_KEYS.map((key) => [key, app.node.tryGetContext(key)]));
new AgentKernelStack(app, app.node.tryGetContext('stackName') ?? 'AgentKernel', {
  config: configFromContext(context),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: 'Agent Kernel for AWS Lambda',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
