/** The peers' agent: the demo's shape (a tool with a zod schema) on the bare OpenAI Agents SDK. */
import { Agent, OpenAIProvider, Runner, tool } from '@openai/agents';
import * as z from 'zod';

let runner: Runner | undefined;

export const agent = new Agent({
  name: 'assistant',
  instructions: 'You are a helpful assistant.',
  model: process.env.OPENAI_MODEL ?? 'gpt-4.1-mini',
  tools: [
    tool({
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: z.object({ city: z.string().min(1) }),
      execute: async ({ city }) => ({ city, conditions: 'sunny' }),
    }),
  ],
});

export function agentRunner(): Runner {
  runner ??= new Runner({
    modelProvider: new OpenAIProvider({
      apiKey: process.env.OPENAI_API_KEY ?? 'no-key',
      ...(process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : {}),
    }),
  });
  return runner;
}
