import { createOpenAI } from '@ai-sdk/openai';
import { expect } from 'vitest';
import {
  AI_SDK_INTEGRATION,
  aiSdkAgent,
  aiSdkToolSet,
} from '../../../lib/frameworks/ai-sdk/index.js';
import { runnerContract } from '../../../lib/testing/runner-contract/index.js';

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
});
