import { LlmAgent } from '@google/adk';
import * as z from 'zod';
import type { AgentsDeps } from '../../lib/aws/wiring/agents-entry.js';
import { ADK_INTEGRATION, AdkModule, geminiModel } from '../../lib/frameworks/adk/index.js';
import { defineTool, Executor } from '../../lib/tools/index.js';

/**
 * An agents entry with one ADK agent (`-c agentsEntry=examples/adk/agents.ts`, or
 * AGENT_KERNEL_AGENTS locally): Gemini through `GEMINI_API_KEY`, or any server speaking Gemini's
 * API at `GEMINI_BASE_URL` (the local stack's scripted model does). `GEMINI_MODEL` names the model.
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
  const { GEMINI_API_KEY, GEMINI_BASE_URL, GEMINI_MODEL } = process.env;
  const agent = new LlmAgent({
    name: 'weather',
    description: 'Answers questions about the weather.',
    model: geminiModel({
      model: GEMINI_MODEL ?? 'gemini-2.5-flash',
      // A local server may need no key; ADK's Gemini class insists on one.
      apiKey: GEMINI_API_KEY ?? (GEMINI_BASE_URL ? 'no-key' : undefined),
      baseUrl: GEMINI_BASE_URL,
    }),
    instruction: 'You answer questions about the weather, briefly.',
    tools: [ADK_INTEGRATION.exportTool(weather, { executor })],
  });
  return { modules: [new AdkModule([agent])] };
}
