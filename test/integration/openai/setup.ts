import { OpenAIProvider, Agent as SdkAgent, tool } from '@openai/agents';
import OpenAI from 'openai';
import * as z from 'zod';
import { currentToolContext } from '../../../lib/core/tool-context.js';
import { OpenAIModule } from '../../../lib/frameworks/openai/index.js';
import { Runtime } from '../../../lib/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import type { ScriptedModelServer } from '../../../lib/testing/index.js';

/** What the weather tool saw, so tests can assert on the tool context it ran in. */
export const toolCalls: { city: string; runId: string; sessionId: string }[] = [];

export const weather = tool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }, runContext) => {
    const ctx = currentToolContext();
    toolCalls.push({ city, runId: ctx.runId, sessionId: ctx.sessionId });
    // Framework context written by a tool must reach the session after success.
    const context = runContext?.context as Record<string, unknown> | undefined;
    if (context) context.lastCity = city;
    return { city, forecast: 'sunny', celsius: 21 };
  },
});

export function makeRuntime(server: ScriptedModelServer, useResponses = true) {
  const client = new OpenAI({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
  const provider = new OpenAIProvider({ openAIClient: client, useResponses });
  const assistant = new SdkAgent({
    name: 'assistant',
    instructions: 'You are helpful.',
    model: 'scripted-model',
    tools: [weather],
  });
  const sessions = new InMemorySessionStore();
  const module = new OpenAIModule([assistant], { runConfig: { modelProvider: provider } });
  const runtime = new Runtime({ sessions, modules: [module] });
  return { runtime, sessions, client, provider, assistant };
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
