import { createOpenAI } from '@ai-sdk/openai';
import { type JSONSchema7, jsonSchema, type LanguageModel, tool } from 'ai';
import { expect } from 'vitest';
import {
  AI_SDK_INTEGRATION,
  aiSdkAgent,
  aiSdkToolSet,
  withToolEffects,
} from '../../../lib/frameworks/ai-sdk/index.js';
import {
  type ContractNativeTool,
  type NativeToolsEnv,
  runnerContract,
} from '../../../lib/testing/runner-contract/index.js';

/** The contract's native tools as the SDK's own `tool()`s, effects declared with `withToolEffects`. */
function nativeAgent(model: LanguageModel, { tools }: NativeToolsEnv) {
  const native = (spec: ContractNativeTool) => {
    const made = tool<{ to: string; amount: number }, string, Record<string, unknown>>({
      description: spec.description,
      inputSchema: jsonSchema<{ to: string; amount: number }>(spec.parameters as JSONSchema7),
      needsApproval: spec.needsApproval,
      execute: (args) => spec.execute(args),
    });
    return spec.effects ? withToolEffects(made, spec.effects) : made;
  };
  return aiSdkAgent({
    name: 'agent',
    model,
    tools: Object.fromEntries(tools.map((spec) => [spec.name, native(spec)])),
  });
}

type Provider = ReturnType<typeof createOpenAI>;

// The whole contract over the Responses API (the provider's default) and Chat Completions.
const variants: [string, (openai: Provider) => LanguageModel][] = [
  ['ai-sdk', (openai) => openai('scripted-model')],
  ['ai-sdk (chat completions)', (openai) => openai.chat('scripted-model')],
];

for (const [name, modelOf] of variants) {
  const model = (modelUrl: string) =>
    modelOf(createOpenAI({ baseURL: modelUrl, apiKey: 'test-key' }));
  runnerContract({
    name,
    supportsPause: true,
    drainedRun: true,
    agent: ({ modelUrl, tools, executor }) =>
      aiSdkAgent({
        name: 'agent',
        model: model(modelUrl),
        tools: aiSdkToolSet(tools.map((spec) => AI_SDK_INTEGRATION.exportTool(spec, { executor }))),
      }),
    // Call settings reach streamText and from there the request body.
    runOption: {
      options: { temperature: 0.25 },
      script: [{ text: 'Cold.' }],
      assess: ({ reply, requests }) => {
        expect(reply).toMatchObject({ status: 'completed', text: 'Cold.' });
        expect(requests[0]?.body.temperature).toBe(0.25);
      },
    },
    reservedOption: 'messages',
    nativeAgent: (env) => nativeAgent(model(env.modelUrl), env),
  });
}
