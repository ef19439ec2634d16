import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { listAgentNames } from './agent-names.js';
import { chosenAgentsEntry } from './bundling.js';
import { CONTEXT_KEYS, configFromContext } from './config.js';
import { PROJECT_ROOT } from './constructs/kernel-function.js';
import { AgentKernelStack } from './stack.js';

// `cdk synth|deploy|destroy` runs this file (cdk.json "app"); context comes from cdk.json or -c.
const app = new App();
const context = Object.fromEntries(CONTEXT_KEYS.map((key) => [key, app.node.tryGetContext(key)]));
// Your agents: the agentsEntry context, else AGENT_KERNEL_AGENTS (as for the local commands).
context.agentsEntry = chosenAgentsEntry(context.agentsEntry, PROJECT_ROOT);
// ws-message checks agent names without loading the agents: tell it which ones exist.
context.agentNames ??= await listAgentNames(context.agentsEntry, PROJECT_ROOT);
new AgentKernelStack(app, app.node.tryGetContext('stackName') ?? 'AgentKernel', {
  config: configFromContext(context),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: 'Agent Kernel for AWS Lambda',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
