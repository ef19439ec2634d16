// Mastra 1.71 journals AI SDK v3-spec models: @ai-sdk/openai 3.x, here under an npm alias
// (`npm i @ai-sdk/openai-v3@npm:@ai-sdk/openai@3`) next to the 4.x that `ai` 7 runs on.
import { createOpenAI } from '@ai-sdk/openai-v3';
import { Agent } from '@mastra/core/agent';
import * as z from 'zod';
import type { AgentsDeps } from '../../lib/aws/wiring/agents-entry.js';
import { MASTRA_INTEGRATION, MastraModule } from '../../lib/frameworks/mastra/index.js';
import { defineTool, Executor } from '../../lib/tools/index.js';

/**
 * An agents entry with one Mastra agent (`-c agentsEntry=examples/mastra/agents.ts`, or
 * AGENT_KERNEL_AGENTS locally): OpenAI through `OPENAI_API_KEY`, or any OpenAI-compatible server
 * at `OPENAI_BASE_URL` (the local stack's scripted model does). `OPENAI_MODEL` names the model.
 */
export function createAgents(deps: AgentsDeps = {}) {
  const weather = defineTool({
    name: 'get_weather',
    description: 'Current weather for a city (made up).',
    input: z.object({ city: z.string() }),
    effects: { readOnly: true },
    handler: ({ city }) => ({ city, forecast: 'sunny', celsius: 21 }),
  });
  const executor = new Executor(deps.ledger ? { ledger: deps.ledger } : {});
  const { OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL } = process.env;
  // A local OpenAI-compatible server may need no key; the provider insists on one.
  const openai = createOpenAI({
    apiKey: OPENAI_API_KEY ?? (OPENAI_BASE_URL ? 'no-key' : undefined),
    baseURL: OPENAI_BASE_URL,
  });
  const agent = new Agent({
    id: 'weather',
    name: 'Weather',
    description: 'Answers questions about the weather.',
    instructions: 'You answer questions about the weather, briefly.',
    model: openai(OPENAI_MODEL ?? 'gpt-4.1-mini'),
    tools: { get_weather: MASTRA_INTEGRATION.exportTool(weather, { executor }) },
  });
  return { modules: [new MastraModule([agent])] };
}
