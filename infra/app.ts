import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { listAgentNames } from './agent-names.js';
import { chosenAgentsEntry } from './bundling.js';
import { configFromContext, stackNameFromContext } from './config.js';
import { PROJECT_ROOT } from './constructs/kernel-function.js';
import { AgentKernelStack } from './stack.js';

// `cdk synth|deploy|destroy` runs this file (cdk.json "app"); context comes from cdk.json or -c.
const app = new App();
// Every key given, known or not: a misspelt one is an error naming the nearest (config.ts).
const context: Record<string, unknown> = { ...app.node.getAllContext() };
// Your agents: the agentsEntry context, else AGENT_KERNEL_AGENTS (as for the local commands).
context.agentsEntry = chosenAgentsEntry(context.agentsEntry as string | undefined, PROJECT_ROOT);
// ws-message checks agent names without loading the agents: tell it which ones exist.
context.agentNames ??= await listAgentNames(
  context.agentsEntry as string | undefined,
  PROJECT_ROOT,
);
// No `env`: an environment-agnostic template (region and account are CloudFormation's pseudo
// parameters, never literals), deployable to whichever account and region the credentials name.
new AgentKernelStack(app, stackNameFromContext(app.node.tryGetContext('stackName')), {
  config: configFromContext(context),
  description: 'Agent Kernel for AWS Lambda',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
