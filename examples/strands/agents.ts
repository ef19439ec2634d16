import { BedrockModel } from '@strands-agents/sdk';
import * as z from 'zod';
import type { AgentsDeps } from '../../lib/aws/wiring/agents-entry.js';
import { STRANDS_INTEGRATION, strandsAgent } from '../../lib/frameworks/strands/index.js';
import { defineTool, Executor } from '../../lib/tools/index.js';
import { offlineBedrock } from './bedrock.js';

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city (made up).',
  input: z.object({ city: z.string() }),
  handler: ({ city }) => ({ city, forecast: 'sunny', celsius: 21 }),
});

/**
 * An agents entry with one Strands agent on Bedrock, for a deployment (`-c
 * agentsEntry=examples/strands/agents.ts`) or the local stack (`AGENT_KERNEL_AGENTS=...`).
 * BEDROCK_MODEL_ID names the model (the function's role needs `bedrock:InvokeModel*` on it);
 * BEDROCK_ENDPOINT points it at a Converse-compatible server instead, such as the scripted model
 * server of the local stack.
 */
export function createAgents(deps: AgentsDeps = {}) {
  const { BEDROCK_MODEL_ID: modelId, BEDROCK_ENDPOINT: endpoint } = process.env;
  const model = endpoint
    ? offlineBedrock(endpoint, modelId)
    : new BedrockModel({ modelId: modelId ?? 'us.amazon.nova-lite-v1:0' });
  const executor = new Executor(deps.ledger ? { ledger: deps.ledger } : {});
  const agent = strandsAgent({
    name: 'strands',
    description: 'Answers weather questions with a Strands agent on Bedrock.',
    model,
    systemPrompt: 'You answer weather questions.',
    tools: [STRANDS_INTEGRATION.exportTool(weather, { executor })],
  });
  return { agents: [agent] };
}
