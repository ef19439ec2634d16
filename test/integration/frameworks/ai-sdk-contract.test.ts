import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { AI_SDK_INTEGRATION, type AiSdkTool } from '../../../lib/frameworks/ai-sdk/index.js';
import { resumeMessages, toPaused } from '../../../lib/frameworks/ai-sdk/state.js';
import {
  type ContractHarness,
  contractTests,
  executorRunnerFactory,
} from '../../../lib/testing/contract/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../../lib/testing/index.js';

let server: ScriptedModelServer;

const harness: ContractHarness<AiSdkTool, unknown> = {
  name: 'ai-sdk',
  // Edits are written into the paused history's tool-call part, as the runner does on resume.
  editsSupported: true,
  approval: 'native',
  integration: () => AI_SDK_INTEGRATION,
  export: (spec, options) => AI_SDK_INTEGRATION.exportTool(spec, options),
  call: (tool, args, { callId }) =>
    tool.execute?.(args, { toolCallId: callId, messages: [], context: {} }),
  value: (result) => result,
  isError: (result) =>
    typeof (result as { error?: { kind?: unknown } } | null)?.error?.kind === 'string',
  describe: (tool) => ({
    name: tool.name,
    description: typeof tool.description === 'string' ? tool.description : '',
    schema: (tool.inputSchema as { jsonSchema: unknown }).jsonSchema,
  }),
  setup: async () => {
    server = await startScriptedModelServer();
  },
  teardown: () => server.close(),
  // The SDK's own gate: a tool-approval-request, then a tool-approval-response in the history.
  approveFlow: async (tool, args, decision, { callId }) => {
    server.reset([
      { toolCalls: [{ id: callId, name: tool.name, arguments: args as Record<string, unknown> }] },
      { text: 'done' },
    ]);
    const model = createOpenAI({ baseURL: server.url, apiKey: 'k' }).chat('scripted-model');
    const tools = { [tool.name]: tool };
    const first = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3) });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    if (!request) throw new Error('the SDK did not ask for approval');
    const paused = toPaused(
      [{ role: 'user', content: 'go' }, ...first.responseMessages] as ModelMessage[],
      [
        {
          approvalId: request.approvalId,
          toolCallId: request.toolCall.toolCallId,
          toolName: tool.name,
          input: request.toolCall.input,
        },
      ],
    );
    const { messages } = resumeMessages('kit', paused, [{ id: callId, ...decision }]);
    const second = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
    const result = second.steps
      .flatMap((step) => step.content)
      .find((part) => part.type === 'tool-result');
    return decision.status === 'approved' ? result?.output : undefined;
  },
};

contractTests(harness);
contractTests(harness, { runnerFactory: executorRunnerFactory });
