import type { FunctionTool, ToolContext } from '@strands-agents/sdk';
import { offlineBedrock } from '../../../examples/strands/bedrock.js';
import { Runtime } from '../../../lib/core/runtime.js';
import { STRANDS_INTEGRATION, strandsAgent } from '../../../lib/frameworks/strands/index.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../../lib/stores/index.js';
import {
  type ContractHarness,
  contractTests,
  executorRunnerFactory,
} from '../../../lib/testing/contract/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../../lib/testing/index.js';

let server: ScriptedModelServer;

/** The tool context Strands' executor hands a tool, for a direct call. */
function strandsContext(tool: FunctionTool, args: unknown, callId: string): ToolContext {
  return {
    toolUse: { name: tool.name, toolUseId: callId, input: args as never },
    agent: undefined as never,
    invocationState: {},
    cancelSignal: new AbortController().signal,
    interrupt: () => {
      throw new Error('not in an agent');
    },
  };
}

const harness: ContractHarness<FunctionTool, unknown> = {
  name: 'strands',
  // An approver's arguments replace the call's input at the gate (and in the paused snapshot).
  editsSupported: true,
  approval: 'native',
  integration: () => STRANDS_INTEGRATION,
  export: (spec, options) => STRANDS_INTEGRATION.exportTool(spec, options),
  call: (tool, args, { callId }) => tool.invoke(args, strandsContext(tool, args, callId)),
  value: (result) => result,
  isError: (result) =>
    typeof (result as { error?: { kind?: unknown } } | null)?.error?.kind === 'string',
  describe: (tool) => ({
    name: tool.name,
    description: tool.description,
    schema: tool.toolSpec.inputSchema,
  }),
  setup: async () => {
    server = await startScriptedModelServer();
  },
  teardown: () => server.close(),
  // The runner's gate: a Strands interrupt pauses the run, the resume answers it.
  approveFlow: async (tool, args, decision, { callId }) => {
    server.reset([
      { toolCalls: [{ id: callId, name: tool.name, arguments: args as Record<string, unknown> }] },
      { text: 'done' },
    ]);
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      pausedRuns: new InMemoryPausedRunStore(),
      agents: [strandsAgent({ name: 'kit', model: offlineBedrock(server.url), tools: [tool] })],
    });
    const paused = await runtime.run('kit', 'kit-session', 'go');
    if (paused.status !== 'paused') throw new Error('the gate did not pause the run');
    let result: unknown;
    for await (const event of runtime.resumeStream('kit-session', paused.runId, [
      { id: callId, ...decision },
    ])) {
      if (event.type === 'tool-call-result' && event.toolCallId === callId) result = event.result;
    }
    return decision.status === 'approved' ? result : undefined;
  },
};

contractTests(harness);
contractTests(harness, { runnerFactory: executorRunnerFactory });
