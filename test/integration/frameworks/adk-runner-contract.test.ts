import { FunctionTool, LlmAgent, LogLevel, setLogLevel } from '@google/adk';
import {
  ADK_INTEGRATION,
  adkAgent,
  geminiModel,
  withToolEffects,
} from '../../../lib/frameworks/adk/index.js';
import {
  type ContractNativeTool,
  type NativeToolsEnv,
  runnerContract,
  stepLimitProbe,
} from '../../../lib/testing/runner-contract/index.js';

// ADK logs every model request at INFO.
setLogLevel(LogLevel.WARN);

/** Gemini's API on the scripted model server: its root, without the OpenAI `/v1`. */
const model = (modelUrl: string) =>
  geminiModel({
    model: 'gemini-2.5-flash',
    apiKey: 'test-key',
    baseUrl: modelUrl.replace(/\/v1$/, ''),
  });

/** The contract's native tools as ADK `FunctionTool`s, effects declared with `withToolEffects`. */
function nativeAgent({ modelUrl, tools }: NativeToolsEnv) {
  const native = (spec: ContractNativeTool) => {
    const made = new FunctionTool({
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters as never,
      requireConfirmation: spec.needsApproval,
      execute: (args) => spec.execute(args as { to: string; amount: number }),
    });
    return spec.effects ? withToolEffects(made, spec.effects) : made;
  };
  return adkAgent(
    new LlmAgent({ name: 'agent', model: model(modelUrl), tools: tools.map(native) }),
  );
}

runnerContract({
  name: 'adk',
  supportsPause: true,
  drainedRun: true,
  agent: ({ modelUrl, tools, executor }) =>
    adkAgent(
      new LlmAgent({
        name: 'agent',
        model: model(modelUrl),
        tools: tools.map((spec) => ADK_INTEGRATION.exportTool(spec, { executor })),
      }),
    ),
  // RunConfig reaches ADK's runner: one model call allowed, so the tool's answer does not fit.
  runOption: stepLimitProbe({ maxLlmCalls: 1 }),
  reservedOption: 'newMessage',
  nativeAgent,
});
