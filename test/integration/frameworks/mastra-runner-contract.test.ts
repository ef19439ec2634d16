import { createOpenAI } from '@ai-sdk/openai-v3';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { expect } from 'vitest';
import {
  MASTRA_INTEGRATION,
  mastraAgent,
  mastraToolSet,
  withToolEffects,
} from '../../../lib/frameworks/mastra/index.js';
import { jsonOnlySchema } from '../../../lib/frameworks/mastra/tools.js';
import {
  type ContractNativeTool,
  type NativeToolsEnv,
  runnerContract,
} from '../../../lib/testing/runner-contract/index.js';

type Provider = ReturnType<typeof createOpenAI>;
type ModelOf = (openai: Provider) => ReturnType<Provider['chat']>;

/** The contract's native tools as Mastra's own `createTool()`s, effects declared with `withToolEffects`. */
function nativeAgent(modelOf: ModelOf, { modelUrl, tools }: NativeToolsEnv) {
  const native = (spec: ContractNativeTool) => {
    const made = createTool({
      id: spec.name,
      description: spec.description,
      inputSchema: jsonOnlySchema(spec.parameters),
      requireApproval: spec.needsApproval,
      execute: (args: unknown) => spec.execute(args as { to: string; amount: number }),
    } as Parameters<typeof createTool>[0]);
    return spec.effects ? withToolEffects(made, spec.effects) : made;
  };
  const agent = new Agent({
    id: 'agent',
    name: 'agent',
    instructions: 'You are a test agent.',
    model: modelOf(createOpenAI({ baseURL: modelUrl, apiKey: 'test-key' })),
    tools: Object.fromEntries(tools.map((spec) => [spec.name, native(spec)])),
  });
  return mastraAgent(agent);
}

// The whole contract over the Responses API (the provider's default) and Chat Completions.
const variants: [string, ModelOf][] = [
  ['mastra', (openai) => openai('scripted-model')],
  ['mastra (chat completions)', (openai) => openai.chat('scripted-model')],
];

for (const [name, modelOf] of variants) {
  runnerContract({
    name,
    supportsPause: true,
    // A drained run goes through `agent.generate`: the model is asked without streaming.
    drainedRun: true,
    agent: ({ modelUrl, tools, executor }) =>
      mastraAgent(
        new Agent({
          id: 'agent',
          name: 'agent',
          instructions: 'You are a test agent.',
          model: modelOf(createOpenAI({ baseURL: modelUrl, apiKey: 'test-key' })),
          tools: mastraToolSet(
            tools.map((spec) => MASTRA_INTEGRATION.exportTool(spec, { executor })),
          ),
        }),
      ),
    // Model settings reach the model call and from there the request body. (Mastra drops
    // `temperature` for OpenAI model ids its registry does not list, such as the scripted one.)
    runOption: {
      options: { modelSettings: { maxOutputTokens: 77 } },
      script: [{ text: 'Cold.' }],
      assess: ({ reply, requests }) => {
        expect(reply).toMatchObject({ status: 'completed', text: 'Cold.' });
        const body = requests[0]?.body;
        expect(body.max_output_tokens ?? body.max_tokens ?? body.max_completion_tokens).toBe(77);
      },
    },
    reservedOption: 'memory',
    nativeAgent: (env) => nativeAgent(modelOf, env),
  });
}
