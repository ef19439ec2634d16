import { tool } from '@langchain/core/tools';
import type { JSONSchema } from '@langchain/core/utils/json_schema';
import { END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { createReactAgent, ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent } from 'langchain';
import type { ToolApproval } from '../../../lib/core/tool-context.js';
import {
  type ApprovalInterrupt,
  LANGGRAPH_INTEGRATION,
  langgraphAgent,
  withToolEffects,
} from '../../../lib/frameworks/langgraph/index.js';
import {
  type ContractNativeTool,
  runnerContract,
  stepLimitProbe,
} from '../../../lib/testing/runner-contract/index.js';

type Payment = { to: string; amount: number };

/**
 * A contract tool as a LangChain `tool()`; one that needs approval asks with `interrupt()` first
 * (the runner reports an `ApprovalInterrupt` as a tool-approval interruption).
 */
function nativeTool(spec: ContractNativeTool) {
  const made = tool(
    async (args: Payment, config) => {
      if (spec.needsApproval) {
        const decision = interrupt<ApprovalInterrupt, ToolApproval>({
          kind: 'tool-approval',
          toolCallId: String(config.toolCall?.id),
          toolName: spec.name,
          arguments: args,
        });
        if (decision.status !== 'approved') return 'The payment was denied.';
      }
      return spec.execute(args);
    },
    { name: spec.name, description: spec.description, schema: spec.parameters as JSONSchema },
  );
  return spec.effects ? withToolEffects(made, spec.effects) : made;
}

runnerContract({
  name: 'langgraph',
  supportsPause: true,
  drainedRun: true,
  agent: ({ modelUrl, tools, executor }) => {
    const llm = new ChatOpenAI({
      model: 'scripted-model',
      apiKey: 'test-key',
      configuration: { baseURL: modelUrl },
      maxRetries: 0,
    });
    const graph = createReactAgent({
      llm,
      tools: tools.map((spec) => LANGGRAPH_INTEGRATION.exportTool(spec, { executor })),
    });
    return langgraphAgent({ name: 'agent', graph });
  },
  // recursionLimit reaches graph.stream: a tool call and an answer need more than two steps.
  runOption: stepLimitProbe({ recursionLimit: 2 }),
  reservedOption: 'thread_id',
  nativeAgent: ({ modelUrl, tools }) =>
    langgraphAgent({
      name: 'agent',
      graph: createReactAgent({ llm: chatModel(modelUrl), tools: tools.map(nativeTool) }),
    }),
});

function chatModel(modelUrl: string) {
  return new ChatOpenAI({
    model: 'scripted-model',
    apiKey: 'test-key',
    configuration: { baseURL: modelUrl },
    maxRetries: 0,
  });
}

// A hand-built graph: model node, ToolNode, and the usual conditional edge.
runnerContract({
  name: 'langgraph (StateGraph)',
  supportsPause: true,
  drainedRun: true,
  agent: ({ modelUrl, tools, executor }) => {
    const exported = tools.map((spec) => LANGGRAPH_INTEGRATION.exportTool(spec, { executor }));
    const model = chatModel(modelUrl).bindTools(exported);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('model', async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode('tools', new ToolNode(exported))
      .addEdge(START, 'model')
      .addConditionalEdges('model', toolsCondition, ['tools', END])
      .addEdge('tools', 'model')
      .compile();
    return langgraphAgent({ name: 'agent', graph });
  },
  runOption: stepLimitProbe({ recursionLimit: 2 }),
  reservedOption: 'thread_id',
  nativeAgent: ({ modelUrl, tools }) => {
    const native = tools.map(nativeTool);
    const model = chatModel(modelUrl).bindTools(native);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('model', async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode('tools', new ToolNode(native))
      .addEdge(START, 'model')
      .addConditionalEdges('model', toolsCondition, ['tools', END])
      .addEdge('tools', 'model')
      .compile();
    return langgraphAgent({ name: 'agent', graph });
  },
});

// langchain's createAgent, the current home of the prebuilt agent.
runnerContract({
  name: 'langgraph (langchain createAgent)',
  supportsPause: true,
  drainedRun: true,
  agent: ({ modelUrl, tools, executor }) => {
    const graph = createAgent({
      model: chatModel(modelUrl),
      tools: tools.map((spec) => LANGGRAPH_INTEGRATION.exportTool(spec, { executor })),
    });
    return langgraphAgent({ name: 'agent', graph });
  },
  runOption: stepLimitProbe({ recursionLimit: 2 }),
  reservedOption: 'thread_id',
  nativeAgent: ({ modelUrl, tools }) =>
    langgraphAgent({
      name: 'agent',
      graph: createAgent({ model: chatModel(modelUrl), tools: tools.map(nativeTool) }),
    }),
});
