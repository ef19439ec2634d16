import { createOpenAI } from '@ai-sdk/openai-v3';
import { Agent } from '@mastra/core/agent';
import { Runtime } from '../../../lib/core/runtime.js';
import {
  MASTRA_INTEGRATION,
  type MastraTool,
  mastraAgent,
} from '../../../lib/frameworks/mastra/index.js';
import { InMemoryPausedRunStore } from '../../../lib/stores/memory/paused-run-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import {
  type ContractHarness,
  contractTests,
  executorRunnerFactory,
} from '../../../lib/testing/contract/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../../lib/testing/index.js';
import { collect } from '../../../lib/testing/runner-contract/index.js';

let server: ScriptedModelServer;

type Execute = (args: unknown, context: unknown) => Promise<unknown>;

const harness: ContractHarness<MastraTool, unknown> = {
  name: 'mastra',
  // An approved call runs with the edited arguments (the runner swaps them in per run).
  editsSupported: true,
  approval: 'native',
  integration: () => MASTRA_INTEGRATION,
  export: (spec, options) => MASTRA_INTEGRATION.exportTool(spec, options),
  // Mastra hands a tool the model's call id under `agent.toolCallId`.
  call: (tool, args, { callId }) =>
    (tool.execute as unknown as Execute)(args, { agent: { toolCallId: callId } }),
  value: (result) => result,
  isError: (result) =>
    typeof (result as { error?: { kind?: unknown } } | null)?.error?.kind === 'string',
  describe: (tool) => ({
    name: tool.id,
    description: tool.description ?? '',
    schema: (tool.inputSchema as unknown as { '~standard': { jsonSchema: { input(): unknown } } })[
      '~standard'
    ].jsonSchema.input(),
  }),
  setup: async () => {
    server = await startScriptedModelServer();
  },
  teardown: () => server.close(),
  // Mastra's own gate: the run suspends at the tool call, then is approved or declined.
  approveFlow: async (tool, args, decision, { callId }) => {
    server.reset([
      { toolCalls: [{ id: callId, name: tool.id, arguments: args as Record<string, unknown> }] },
      { text: 'done' },
    ]);
    const native = new Agent({
      id: 'kit',
      name: 'kit',
      instructions: 'Use the tool.',
      model: createOpenAI({ baseURL: server.url, apiKey: 'k' }).chat('scripted-model'),
      tools: { [tool.id]: tool },
    });
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      pausedRuns: new InMemoryPausedRunStore(),
      agents: [mastraAgent(native)],
    });
    const paused = await runtime.run('kit', 'kit-session', 'go');
    if (paused.status !== 'paused') throw new Error('Mastra did not ask for approval');
    const events = await collect(
      runtime.resumeStream('kit-session', paused.runId, [{ id: callId, ...decision }]),
    );
    const result = events.find((e) => e.type === 'tool-call-result' && e.toolCallId === callId);
    return decision.status === 'approved' && result?.type === 'tool-call-result'
      ? result.result
      : undefined;
  },
};

contractTests(harness);
contractTests(harness, { runnerFactory: executorRunnerFactory });
