import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  RunContext,
  Runner,
  Usage,
} from '@openai/agents';
import { OPENAI_INTEGRATION, type OpenAITool } from '../../../lib/frameworks/openai/index.js';
import {
  type ContractHarness,
  contractTests,
  executorRunnerFactory,
} from '../../../lib/testing/contract/index.js';

/** Calls one tool once, then answers with text: enough to drive the SDK's approval gate. */
class OneCallModel implements Model {
  #turn = 0;

  constructor(private readonly call: { name: string; callId: string; args: unknown }) {}

  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    this.#turn += 1;
    const output: ModelResponse['output'] =
      this.#turn === 1
        ? [
            {
              type: 'function_call',
              id: `fc_${this.call.callId}`,
              callId: this.call.callId,
              name: this.call.name,
              arguments: JSON.stringify(this.call.args),
              status: 'completed',
            },
          ]
        : [
            {
              type: 'message',
              id: 'msg_1',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'done' }],
            },
          ];
    return { usage: new Usage(), output };
  }

  // biome-ignore lint/correctness/useYield: the kit's flow never streams.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed');
  }
}

const harness: ContractHarness<OpenAITool, unknown> = {
  name: 'openai',
  editsSupported: false,
  approval: 'native',
  integration: () => OPENAI_INTEGRATION,
  export: (spec, options) => OPENAI_INTEGRATION.exportTool(spec, options),
  call: (tool, args, { callId }) => {
    const text = JSON.stringify(args);
    return tool.invoke(new RunContext({}), text, {
      toolCall: { type: 'function_call', callId, name: tool.name, arguments: text },
    });
  },
  value: (result) => result,
  isError: (result) =>
    typeof (result as { error?: { kind?: unknown } } | null)?.error?.kind === 'string',
  describe: (tool) => ({ name: tool.name, description: tool.description, schema: tool.parameters }),
  // The SDK's own gate: the run pauses, a human decides on the RunState, the run resumes.
  approveFlow: async (tool, args, decision, { callId }) => {
    const model = new OneCallModel({ name: tool.name, callId, args });
    const agent = new Agent({ name: 'kit', model, tools: [tool] });
    const runner = new Runner({ tracingDisabled: true });
    const paused = await runner.run(agent, 'go');
    const [interruption] = paused.interruptions;
    if (!interruption) throw new Error('the SDK did not ask for approval');
    if (decision.status === 'approved') paused.state.approve(interruption);
    else paused.state.reject(interruption, { message: decision.message ?? 'denied' });
    const resumed = await runner.run(agent, paused.state);
    const output = resumed.newItems.find((item) => item.type === 'tool_call_output_item');
    return decision.status === 'approved' ? (output as { output?: unknown })?.output : undefined;
  },
};

contractTests(harness, { runnerFactory: executorRunnerFactory });
