import {
  OpenAIProvider,
  OpenAIResponsesModel,
  Agent as SdkAgent,
  type ToolInputParameters,
  tool,
} from '@openai/agents';
import OpenAI from 'openai';
import {
  OPENAI_INTEGRATION,
  openaiAgent,
  withToolEffects,
} from '../../../lib/frameworks/openai/index.js';
import { OpenAIRunner } from '../../../lib/frameworks/openai/runner.js';
import {
  type ContractNativeTool,
  runnerContract,
  stepLimitProbe,
} from '../../../lib/testing/runner-contract/index.js';

/** A contract tool as the SDK's own `tool()`, its effects declared with `withToolEffects`. */
function nativeTool(spec: ContractNativeTool) {
  const native = tool({
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters as Extract<ToolInputParameters, { additionalProperties: true }>,
    strict: false,
    needsApproval: spec.needsApproval,
    execute: (args) => spec.execute(args as { to: string; amount: number }),
  });
  return spec.effects ? withToolEffects(native, spec.effects) : native;
}

type Tools = SdkAgent['tools'];

function agentWith(modelUrl: string, tools: Tools, useResponses: boolean) {
  const client = new OpenAI({ apiKey: 'test-key', baseURL: modelUrl, maxRetries: 0 });
  const native = new SdkAgent({ name: 'agent', model: 'scripted-model', tools });
  const modelProvider = new OpenAIProvider({ openAIClient: client, useResponses });
  return openaiAgent(native, { runner: new OpenAIRunner({ runConfig: { modelProvider } }) });
}

/** An agent whose model is a Model instance (it bypasses the runner's provider): still replayed. */
function instanceAgent(modelUrl: string, tools: Tools) {
  const client = new OpenAI({ apiKey: 'test-key', baseURL: modelUrl, maxRetries: 0 });
  const model = new OpenAIResponsesModel(client, 'scripted-model');
  return openaiAgent(new SdkAgent({ name: 'agent', model, tools }));
}

// The whole contract over Responses, Chat Completions (its own response shape in the journal)
// and a Model instance.
const variants: [string, (modelUrl: string, tools: Tools) => ReturnType<typeof openaiAgent>][] = [
  ['openai', (url, tools) => agentWith(url, tools, true)],
  ['openai (chat completions)', (url, tools) => agentWith(url, tools, false)],
  ['openai (Model instance)', instanceAgent],
];

for (const [name, build] of variants) {
  runnerContract({
    name,
    supportsPause: true,
    drainedRun: true,
    agent: ({ modelUrl, tools, executor }) =>
      build(
        modelUrl,
        tools.map((spec) => OPENAI_INTEGRATION.exportTool(spec, { executor })),
      ),
    // maxTurns reaches the SDK's run call: one turn is not enough for a tool call and an answer.
    runOption: stepLimitProbe({ maxTurns: 1 }),
    reservedOption: 'stream',
    nativeAgent: ({ modelUrl, tools }) => build(modelUrl, tools.map(nativeTool)),
  });
}
