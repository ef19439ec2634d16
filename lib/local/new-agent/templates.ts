/**
 * The files `npm run new-agent` writes: an agents module per framework, each with one agent, one
 * read-only tool and an offline responder, so it answers (tool call included) with no model key.
 */
export const FRAMEWORKS = ['openai', 'ai-sdk', 'langgraph'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** The npm packages each framework's module imports (besides the kernel and zod). */
export const FRAMEWORK_PACKAGES: Record<Framework, readonly string[]> = {
  openai: ['@openai/agents'],
  'ai-sdk': ['ai', '@ai-sdk/openai'],
  langgraph: ['@langchain/core', '@langchain/langgraph', '@langchain/openai'],
};

/**
 * An import line of the written module. Built, not written out: test/unit/architecture.test.ts
 * reads `from '…'` in lib/ as this file's own imports, and framework SDKs belong to lib/frameworks.
 */
const imp = (names: string, pkg: string) => `import ${names} from '${pkg}';`;

const SHARED_TOOL = `const clock = defineTool({
  name: 'get_time',
  description: 'The current time in UTC (ISO 8601).',
  input: z.object({}),
  // Reads only: a replayed run may simply call it again.
  effects: { readOnly: true },
  handler: () => new Date().toISOString(),
});`;

const OFFLINE = `/**
 * Without OPENAI_API_KEY, \`npm start\` and \`npm run invoke\` answer with the scripted model:
 * a question about the time calls get_time, anything else is echoed.
 */
export function offlineResponder(request: RecordedRequest): ScriptedTurn {
  const body = (request.body ?? {}) as { input?: unknown; messages?: unknown };
  const items = (Array.isArray(body.input) ? body.input : body.messages) as Item[] | undefined;
  const last = items?.at(-1);
  if (last?.type === 'function_call_output' || last?.role === 'tool') {
    return { text: \`It is \${textOf(last.output ?? last.content)} (UTC).\` };
  }
  const said = textOf(last?.content).trim();
  if (/time/i.test(said)) return { toolCalls: [{ name: 'get_time', arguments: {} }] };
  return { text: \`You said: \${said}\` };
}

type Item = { type?: string; role?: string; content?: unknown; output?: unknown };

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return '';
  return value.map((part: { text?: unknown }) => String(part?.text ?? '')).join('');
}`;

const COMMON_IMPORTS = `import * as z from 'zod';
import type { ToolLedger } from 'agent-kernel-lambda/core';
import type { RecordedRequest, ScriptedTurn } from 'agent-kernel-lambda/testing';
import { defineTool, Executor } from 'agent-kernel-lambda/tools';`;

const MODULES: Record<Framework, (agent: string) => string> = {
  openai: (agent) => `import { Agent, OpenAIProvider } from '@openai/agents';
${COMMON_IMPORTS}
import { OPENAI_INTEGRATION, OpenAIModule } from 'agent-kernel-lambda/frameworks/openai';

${SHARED_TOOL}

/** The deployment hands in its tool ledger (absent locally): effectful calls are recorded once. */
export function createAgents(deps: { ledger?: ToolLedger } = {}) {
  const executor = new Executor(deps.ledger ? { ledger: deps.ledger } : {});
  const agent = new Agent({
    name: '${agent}',
    instructions: 'You are a helpful assistant. Use get_time for the time.',
    model: process.env.OPENAI_MODEL ?? 'gpt-4.1-mini',
    tools: [OPENAI_INTEGRATION.exportTool(clock, { executor })],
  });
  const modelProvider = new OpenAIProvider({
    apiKey: process.env.OPENAI_API_KEY,
    baseURL: process.env.OPENAI_BASE_URL,
    useResponses: true,
  });
  return { modules: [new OpenAIModule([agent], { runConfig: { modelProvider } })] };
}

${OFFLINE}
`,
  'ai-sdk': (agent) => `import { createOpenAI } from '@ai-sdk/openai';
${COMMON_IMPORTS}
import { AI_SDK_INTEGRATION, aiSdkAgent, aiSdkToolSet } from 'agent-kernel-lambda/frameworks/ai-sdk';

${SHARED_TOOL}

/** The deployment hands in its tool ledger (absent locally): effectful calls are recorded once. */
export function createAgents(deps: { ledger?: ToolLedger } = {}) {
  const executor = new Executor(deps.ledger ? { ledger: deps.ledger } : {});
  const openai = createOpenAI({
    apiKey: process.env.OPENAI_API_KEY,
    baseURL: process.env.OPENAI_BASE_URL,
  });
  const agent = aiSdkAgent({
    name: '${agent}',
    description: 'A helpful assistant that knows the time.',
    model: openai(process.env.OPENAI_MODEL ?? 'gpt-4.1-mini'),
    instructions: 'You are a helpful assistant. Use get_time for the time.',
    tools: aiSdkToolSet([AI_SDK_INTEGRATION.exportTool(clock, { executor })]),
  });
  return { agents: [agent] };
}

${OFFLINE}
`,
  langgraph: (agent) => `import { createReactAgent } from '@langchain/langgraph/prebuilt';
${imp('{ ChatOpenAI }', '@langchain/openai')}
${COMMON_IMPORTS}
import { LANGGRAPH_INTEGRATION, langgraphAgent } from 'agent-kernel-lambda/frameworks/langgraph';

${SHARED_TOOL}

/** The deployment hands in its tool ledger (absent locally): effectful calls are recorded once. */
export function createAgents(deps: { ledger?: ToolLedger } = {}) {
  const executor = new Executor(deps.ledger ? { ledger: deps.ledger } : {});
  const llm = new ChatOpenAI({
    model: process.env.OPENAI_MODEL ?? 'gpt-4.1-mini',
    apiKey: process.env.OPENAI_API_KEY,
    configuration: { baseURL: process.env.OPENAI_BASE_URL },
  });
  const tools = [LANGGRAPH_INTEGRATION.exportTool(clock, { executor })];
  const agent = langgraphAgent({
    name: '${agent}',
    description: 'A helpful assistant that knows the time.',
    graph: createReactAgent({ llm, tools, prompt: 'You are a helpful assistant.' }),
  });
  return { agents: [agent] };
}

${OFFLINE}
`,
};

export function agentsModule(framework: Framework, agent: string): string {
  return MODULES[framework](agent);
}
