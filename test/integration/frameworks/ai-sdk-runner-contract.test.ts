import { createOpenAI } from '@ai-sdk/openai';
import { jsonSchema, type LanguageModel, tool } from 'ai';
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
    const made = tool<{ to: string; amount: number }, string>({
      description: spec.description,
      inputSchema: jsonSchema<{ to: string; amount: number }>(spec.parameters as any),
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

runnerContract({
  name: 'ai-sdk',
  supportsPause: true,
  agent: ({ modelUrl, tools, executor }) => {
    const openai = createOpenAI({ baseURL: modelUrl, apiKey: 'test-key' });
    return aiSdkAgent({
      name: 'agent',
      // The provider's default model API is the Responses API.
      model: openai('scripted-model'),
      tools: aiSdkToolSet(tools.map((spec) => AI_SDK_INTEGRATION.exportTool(spec, { executor }))),
    });
  },
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
  nativeAgent: (env) =>
    nativeAgent(createOpenAI({ baseURL: env.modelUrl, apiKey: 'test-key' })('scripted-model'), env),
});

// The same contract over Chat Completions (`provider.chat(model)`).
runnerContract({
  name: 'ai-sdk (chat completions)',
  supportsPause: true,
  agent: ({ modelUrl, tools, executor }) => {
    const openai = createOpenAI({ baseURL: modelUrl, apiKey: 'test-key' });
    return aiSdkAgent({
      name: 'agent',
      model: openai.chat('scripted-model'),
      tools: aiSdkToolSet(tools.map((spec) => AI_SDK_INTEGRATION.exportTool(spec, { executor }))),
    });
  },
  runOption: {
    options: { temperature: 0.25 },
    script: [{ text: 'Cold.' }],
    assess: ({ reply, requests }) => {
      expect(reply).toMatchObject({ status: 'completed', text: 'Cold.' });
      expect(requests[0]?.body.temperature).toBe(0.25);
    },
  },
  reservedOption: 'messages',
  nativeAgent: (env) =>
    nativeAgent(
      createOpenAI({ baseURL: env.modelUrl, apiKey: 'test-key' }).chat('scripted-model'),
      env,
    ),
});
