import { type Context, LlmAgent, LogLevel, setLogLevel } from '@google/adk';
import { Runtime } from '../../../lib/core/runtime.js';
import { tryToolContext } from '../../../lib/core/tool-context.js';
import {
  ADK_INTEGRATION,
  type AdkSpecTool,
  adkAgent,
  geminiModel,
} from '../../../lib/frameworks/adk/index.js';
import { InMemoryPausedRunStore } from '../../../lib/stores/memory/paused-run-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import {
  type ContractHarness,
  contractTests,
  executorRunnerFactory,
} from '../../../lib/testing/contract/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../../lib/testing/index.js';

setLogLevel(LogLevel.WARN);

let server: ScriptedModelServer;

/** The call context ADK hands a tool, as far as a direct call needs it. */
function callContext(callId: string): Context {
  const signal = tryToolContext()?.signal;
  return {
    functionCallId: callId,
    actions: {
      stateDelta: {},
      artifactDelta: {},
      requestedAuthConfigs: {},
      requestedToolConfirmations: {},
    },
    ...(signal ? { abortSignal: signal } : {}),
    requestConfirmation: () => {
      throw new Error('a direct call cannot ask for confirmation');
    },
  } as unknown as Context;
}

const harness: ContractHarness<AdkSpecTool, unknown> = {
  name: 'adk',
  // Edits are written into both copies of the call in the paused session, as the runner does.
  editsSupported: true,
  approval: 'native',
  integration: () => ADK_INTEGRATION,
  export: (spec, options) => ADK_INTEGRATION.exportTool(spec, options),
  call: (tool, args, { callId }) =>
    tool.runAsync({ args: args as Record<string, unknown>, toolContext: callContext(callId) }),
  value: (result) => result,
  isError: (result) =>
    typeof (result as { error?: { kind?: unknown } } | null)?.error?.kind === 'string',
  describe: (tool) => {
    const declaration = tool._getDeclaration();
    return {
      name: tool.name,
      description: tool.description,
      schema: declaration?.parametersJsonSchema,
    };
  },
  setup: async () => {
    server = await startScriptedModelServer();
  },
  teardown: () => server.close(),
  // ADK's own gate, through the runner: a confirmation request, then the user's answer.
  approveFlow: async (tool, args, decision, { callId }) => {
    server.reset([
      { toolCalls: [{ id: callId, name: tool.name, arguments: args as Record<string, unknown> }] },
      { text: 'done' },
    ]);
    const model = geminiModel({ apiKey: 'k', baseUrl: server.url.replace(/\/v1$/, '') });
    const agent = adkAgent(new LlmAgent({ name: 'kit', model, tools: [tool] }));
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      pausedRuns: new InMemoryPausedRunStore(),
      agents: [agent],
    });
    const paused = await runtime.run('kit', 's-kit', 'go');
    if (paused.status !== 'paused') throw new Error('ADK did not ask for confirmation');
    let result: unknown;
    for await (const event of runtime.resumeStream('s-kit', paused.runId, [
      { id: callId, ...decision },
    ])) {
      if (event.type === 'tool-call-result' && event.toolCallId === callId) result = event.result;
    }
    return decision.status === 'approved' ? result : undefined;
  },
};

contractTests(harness);
contractTests(harness, { runnerFactory: executorRunnerFactory });
