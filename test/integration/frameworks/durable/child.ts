/**
 * One attempt of a run in its own process, for the SIGKILL tests: argv = framework, model URL,
 * journal file, effects file, run id. `KILL_AT=after-tool` kills the process right after the
 * tool's outcome is in the journal (before the session save); `KILL_AT=during-tool` right after
 * the tool's side effect, before it returns. Prints the turn's last event as JSON.
 */
import { appendFileSync } from 'node:fs';
import * as z from 'zod';
import type { Agent } from '../../../../lib/core/agent.js';
import type { JournalRecords } from '../../../../lib/core/journal.js';
import { Runtime } from '../../../../lib/core/runtime.js';
import { tryToolContext } from '../../../../lib/core/tool-context.js';
import { InMemoryPausedRunStore } from '../../../../lib/stores/memory/paused-run-store.js';
import { InMemorySessionStore } from '../../../../lib/stores/memory/session-store.js';
import { defineTool } from '../../../../lib/tools/spec.js';
import { FileRunJournalStore } from './file-journal-store.js';

const [framework, modelUrl, journalFile, effectsFile, runId] = process.argv.slice(2) as string[];
const killAt = process.env.KILL_AT;
// TOOL=mcp: `pay` is the remote MCP server's tool at MCP_URL, through lib/mcp's adapter.
const spec = process.env.TOOL === 'spec' || process.env.TOOL === 'mcp';
const decide = process.env.DECIDE as 'approved' | 'denied' | undefined;
type Payment = { to: string; amount: number };
const schema = {
  type: 'object',
  properties: { to: { type: 'string' }, amount: { type: 'number' } },
  required: ['to', 'amount'],
};

async function pay({ to, amount }: Payment): Promise<string> {
  appendFileSync(effectsFile as string, `${tryToolContext()?.idempotencyKey}\n`);
  if (killAt === 'during-tool') process.kill(process.pid, 'SIGKILL');
  return `sent ${amount} to ${to}`;
}

/** `pay` as a ToolSpec whose unknown outcome asks a person (or the remote MCP server's `pay`). */
const localPaySpec = defineTool({
  name: 'pay',
  description: 'Send money',
  input: z.object({ to: z.string(), amount: z.number() }),
  effects: { onUnknownOutcome: 'pause' },
  handler: (args) => pay(args),
});
const paySpec =
  process.env.TOOL === 'mcp'
    ? ((
        await (
          await import('../../../../lib/mcp/tools.js')
        ).mcpTools({
          url: process.env.MCP_URL as string,
          include: ['pay'],
        })
      )[0] as typeof localPaySpec)
    : localPaySpec;

/**
 * Dies around the write a finished call's outcome rides on (here the runner's last one):
 * `before-fold` just before it (the tool ran, its outcome is written nowhere), `after-tool` just
 * after it (the outcome is in the journal, the session is not saved).
 */
class KillingStore extends FileRunJournalStore {
  override async record(s: string, r: string, records: JournalRecords) {
    const outcomes = (records.outcomes?.length ?? 0) > 0;
    if (outcomes && killAt === 'before-fold') process.kill(process.pid, 'SIGKILL');
    await super.record(s, r, records);
    if (outcomes && killAt === 'after-tool') process.kill(process.pid, 'SIGKILL');
  }
}

/** The framework's agent with `pay` as its native tool (only that framework is loaded). */
async function agent(): Promise<Agent<any>> {
  const description = 'Send money';
  if (framework === 'adk') {
    const adk = await import('@google/adk');
    const { adkAgent, geminiModel } = await import('../../../../lib/frameworks/adk/index.js');
    // ADK logs to stdout, where this process prints its result.
    adk.setLogLevel(adk.LogLevel.ERROR);
    const model = geminiModel({ apiKey: 'k', baseUrl: modelUrl?.replace(/\/v1$/, '') });
    const execute = (args: unknown) => pay(args as Payment);
    const { ADK_INTEGRATION } = await import('../../../../lib/frameworks/adk/index.js');
    const payTool = spec
      ? ADK_INTEGRATION.exportTool(paySpec)
      : new adk.FunctionTool({ name: 'pay', description, parameters: schema as any, execute });
    return adkAgent(new adk.LlmAgent({ name: 'agent', model, tools: [payTool] }));
  }
  if (framework === 'openai') {
    const { OpenAIProvider, Agent: SdkAgent, tool } = await import('@openai/agents');
    const { default: OpenAI } = await import('openai');
    const { OpenAIRunner, openaiAgent, OPENAI_INTEGRATION } = await import(
      '../../../../lib/frameworks/openai/index.js'
    );
    const client = new OpenAI({ apiKey: 'k', baseURL: modelUrl, maxRetries: 0 });
    const execute = (args: unknown) => pay(args as Payment);
    const tools = [
      spec
        ? OPENAI_INTEGRATION.exportTool(paySpec)
        : tool({ name: 'pay', description, parameters: schema as any, strict: false, execute }),
    ];
    const native = new SdkAgent({ name: 'agent', model: 'scripted-model', tools });
    const modelProvider = new OpenAIProvider({ openAIClient: client, useResponses: true });
    return openaiAgent(native, { runner: new OpenAIRunner({ runConfig: { modelProvider } }) });
  }
  if (framework === 'ai-sdk') {
    const { createOpenAI } = await import('@ai-sdk/openai');
    const { jsonSchema, tool } = await import('ai');
    const { aiSdkAgent, AI_SDK_INTEGRATION } = await import(
      '../../../../lib/frameworks/ai-sdk/index.js'
    );
    const model = createOpenAI({ baseURL: modelUrl, apiKey: 'k' })('scripted-model');
    const inputSchema = jsonSchema<Payment>(schema as any);
    return aiSdkAgent({
      name: 'agent',
      model,
      tools: {
        pay: spec
          ? AI_SDK_INTEGRATION.exportTool(paySpec)
          : tool({ description, inputSchema, execute: pay }),
      },
    });
  }
  if (framework === 'strands') {
    const { FunctionTool } = await import('@strands-agents/sdk');
    const { offlineBedrock } = await import('../../../../examples/strands/bedrock.js');
    const { strandsAgent, STRANDS_INTEGRATION } = await import(
      '../../../../lib/frameworks/strands/index.js'
    );
    const callback = (input: unknown) => pay(input as Payment);
    const inputSchema = schema as never;
    const payTool = spec
      ? STRANDS_INTEGRATION.exportTool(paySpec)
      : new FunctionTool({ name: 'pay', description, inputSchema, callback });
    return strandsAgent({ name: 'agent', model: offlineBedrock(modelUrl ?? ''), tools: [payTool] });
  }
  if (framework === 'mastra') {
    const { createOpenAI } = await import('@ai-sdk/openai-v3');
    const { Agent: MastraAgent } = await import('@mastra/core/agent');
    const { createTool } = await import('@mastra/core/tools');
    const { mastraAgent, MASTRA_INTEGRATION } = await import(
      '../../../../lib/frameworks/mastra/index.js'
    );
    const { jsonOnlySchema } = await import('../../../../lib/frameworks/mastra/tools.js');
    const model = createOpenAI({ baseURL: modelUrl, apiKey: 'k' })('scripted-model');
    const inputSchema = jsonOnlySchema(schema);
    const payTool = spec
      ? MASTRA_INTEGRATION.exportTool(paySpec)
      : createTool({ id: 'pay', description, inputSchema, execute: pay } as any);
    const tools = { pay: payTool };
    return mastraAgent(
      new MastraAgent({ id: 'agent', name: 'agent', instructions: '', model, tools }),
    );
  }
  const { tool } = await import('@langchain/core/tools');
  const { createReactAgent } = await import('@langchain/langgraph/prebuilt');
  const { ChatOpenAI } = await import('@langchain/openai');
  const { langgraphAgent, LANGGRAPH_INTEGRATION } = await import(
    '../../../../lib/frameworks/langgraph/index.js'
  );
  const configuration = { baseURL: modelUrl };
  const llm = new ChatOpenAI({
    model: 'scripted-model',
    apiKey: 'k',
    configuration,
    maxRetries: 0,
  });
  const payTool = spec
    ? LANGGRAPH_INTEGRATION.exportTool(paySpec)
    : tool(pay, { name: 'pay', description, schema: schema as any });
  return langgraphAgent({ name: 'agent', graph: createReactAgent({ llm, tools: [payTool] }) });
}

const runtime = new Runtime({
  sessions: new InMemorySessionStore(),
  pausedRuns: new InMemoryPausedRunStore(),
  agents: [await agent()],
  journal: new KillingStore(journalFile as string),
});
let last: any;
for await (const event of runtime.stream('agent', 's-kill', 'Pay Bob 10', { runId })) last = event;
if (decide && last?.type === 'run-paused') {
  const paused = last;
  const decisions = [{ id: paused.interruptions[0]?.id, status: decide }];
  for await (const event of runtime.resumeStream('s-kill', paused.runId, decisions)) last = event;
  process.stdout.write(JSON.stringify({ paused, resumed: last }));
} else {
  process.stdout.write(JSON.stringify(last));
}
