/**
 * The peers' agent: the demo's shape (a tool with a zod schema) on the bare OpenAI Agents SDK,
 * its key read once from the Secrets Manager secret the stack names (as a default deploy does).
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
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

async function modelKey(): Promise<string> {
  const name = process.env.MODEL_SECRET_NAME;
  if (!name) return process.env.OPENAI_API_KEY ?? 'no-key';
  const secrets = new SecretsManagerClient({});
  const out = await secrets.send(new GetSecretValueCommand({ SecretId: name }));
  return out.SecretString ?? '';
}

export async function agentRunner(): Promise<Runner> {
  runner ??= new Runner({
    modelProvider: new OpenAIProvider({
      apiKey: await modelKey(),
      ...(process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : {}),
    }),
  });
  return runner;
}
