import { AIMessage, type ToolMessage } from '@langchain/core/messages';
import {
  Command,
  END,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { LANGGRAPH_INTEGRATION, type SpecTool } from '../../../lib/frameworks/langgraph/index.js';
import {
  type ContractHarness,
  contractTests,
  executorRunnerFactory,
} from '../../../lib/testing/contract/index.js';

/** The tool's value: our integration answers with JSON text in the ToolMessage. */
function contentOf(result: unknown): unknown {
  const content = (result as ToolMessage | undefined)?.content ?? result;
  if (typeof content !== 'string') return content;
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

const kindOf = (result: unknown) =>
  (contentOf(result) as { error?: { kind?: unknown } } | null)?.error?.kind;

const harness: ContractHarness<SpecTool, unknown> = {
  name: 'langgraph',
  // The decision is the interrupt's resume value; its arguments reach the executor.
  editsSupported: true,
  approval: 'native',
  integration: () => LANGGRAPH_INTEGRATION,
  export: (spec, options) => LANGGRAPH_INTEGRATION.exportTool(spec, options),
  // As ToolNode calls it: a tool call with the model's id.
  call: (tool, args, { callId }) =>
    tool.invoke({
      type: 'tool_call',
      id: callId,
      name: tool.name,
      args: args as Record<string, unknown>,
    }),
  value: contentOf,
  // LangChain's tool-error channel: status "error", the model-visible error as content.
  isError: (result) =>
    (result as ToolMessage | undefined)?.status === 'error' && typeof kindOf(result) === 'string',
  errorKind: (error) => {
    const kind = kindOf(error);
    return typeof kind === 'string' ? kind : (error as { code?: string } | null)?.code;
  },
  describe: (tool) => ({ name: tool.name, description: tool.description, schema: tool.schema }),
  // LangGraph's own gate: the tool's interrupt() pauses the graph, Command({ resume }) answers.
  approveFlow: async (tool, args, decision, { callId }) => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('tools', new ToolNode([tool]))
      .addEdge(START, 'tools')
      .addEdge('tools', END)
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: callId } };
    const call = { id: callId, name: tool.name, args: args as Record<string, unknown> };
    await graph.invoke({ messages: [new AIMessage({ content: '', tool_calls: [call] })] }, config);
    const state = await graph.getState(config);
    if (!state.tasks.some((task) => task.interrupts.length > 0)) {
      throw new Error('the tool did not interrupt for approval');
    }
    const done = await graph.invoke(new Command({ resume: decision }), config);
    return decision.status === 'approved' ? contentOf(done.messages.at(-1)) : undefined;
  },
};

contractTests(harness);
contractTests(harness, { runnerFactory: executorRunnerFactory });
