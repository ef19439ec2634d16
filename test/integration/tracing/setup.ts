import { OpenAIProvider, Agent as SdkAgent } from '@openai/agents';
import OpenAI from 'openai';
import * as z from 'zod';
import { type PreHook, Runtime } from '../../../lib/core/index.js';
import { OPENAI_INTEGRATION, OpenAIModule } from '../../../lib/frameworks/openai/index.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../../lib/stores/index.js';
import type { ScriptedModelServer } from '../../../lib/testing/index.js';
import { defineTool, Executor, InMemoryToolLedger } from '../../../lib/tools/index.js';
import { CloudWatchTracer, type CloudWatchTracerOptions } from '../../../lib/tracing/index.js';

/**
 * A Runtime with the cloudwatch tracer whose OpenAI agent has one ToolSpec tool (with a
 * sensitive `pin` argument) exported through the Executor; every EMF and log line is kept.
 */
export function tracedRuntime(
  server: ScriptedModelServer,
  options: CloudWatchTracerOptions & {
    apiKey?: string;
    preHooks?: (tracer: CloudWatchTracer) => PreHook[];
    onToolCall?: (tracer: CloudWatchTracer, args: unknown) => void;
    /** The tool needs approval: the run pauses (the SDK's own gate). */
    confirm?: boolean;
  } = {},
) {
  const lines: string[] = [];
  const tracer = new CloudWatchTracer({ sink: (line) => lines.push(line), env: {}, ...options });
  const weather = defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    input: z.object({ city: z.string().min(1), pin: z.string().optional() }),
    sensitive: ['pin'],
    confirm: options.confirm ?? false,
    handler: (args) => {
      options.onToolCall?.(tracer, args);
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
    preHooks: options.preHooks?.(tracer) ?? [],
  });
  return { runtime, tracer, lines };
}
