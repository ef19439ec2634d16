import { OpenAIProvider, Agent as SdkAgent } from '@openai/agents';
import OpenAI from 'openai';
import * as z from 'zod';
import { Runtime, type Tracer } from '../../../lib/core/index.js';
import { OPENAI_INTEGRATION, OpenAIModule } from '../../../lib/frameworks/openai/index.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../../lib/stores/index.js';
import type { ScriptedModelServer } from '../../../lib/testing/index.js';
import { defineTool, Executor, InMemoryToolLedger } from '../../../lib/tools/index.js';

/**
 * A Runtime on `tracer` whose OpenAI agent has one ToolSpec tool (a sensitive `pin`) through the
 * Executor; `calls` counts the tool's real runs.
 */
export function otelRuntime(
  server: ScriptedModelServer,
  tracer: Tracer,
  options: { confirm?: boolean; apiKey?: string } = {},
) {
  const calls: unknown[] = [];
  const weather = defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    input: z.object({ city: z.string().min(1), pin: z.string().optional() }),
    sensitive: ['pin'],
    confirm: options.confirm ?? false,
    handler: (args) => {
      calls.push(args);
      return { city: args.city, forecast: 'sunny' };
    },
  });
  const executor = new Executor({ ledger: new InMemoryToolLedger() });
  const client = new OpenAI({
    apiKey: options.apiKey ?? 'test-key',
    baseURL: server.url,
    maxRetries: 0,
  });
  const agent = new SdkAgent({
    name: 'assistant',
    instructions: 'You are helpful.',
    model: 'scripted-model',
    tools: [OPENAI_INTEGRATION.exportTool(weather, { executor })],
  });
  const module = new OpenAIModule([agent], {
    runConfig: { modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }) },
  });
  const runtime = new Runtime({
    sessions: new InMemorySessionStore(),
    pausedRuns: new InMemoryPausedRunStore(),
    modules: [module],
    tracer,
  });
  return { runtime, calls };
}
