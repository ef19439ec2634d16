import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { toolsCondition } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Runtime } from '../../../lib/core/runtime.js';
import { tryToolContext } from '../../../lib/core/tool-context.js';
import {
  LANGGRAPH_INTEGRATION,
  langgraphAgent,
  withToolEffects,
} from '../../../lib/frameworks/langgraph/index.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/memory/journal-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import { CrashBeforeSave } from '../../../lib/testing/runner-contract/index.js';
import { collect } from '../../../lib/testing/runner-contract/world.js';
import { defineTool } from '../../../lib/tools/spec.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

// Fresh call ids in every response: a retried run finds its calls only by replay.
const server = useScriptedModelServer({ freshCallIds: true });
let dir: string;
let effects: string;
let crash: CrashBeforeSave;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ak-custom-node-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(({ task }) => {
  effects = join(dir, `${task.id}.log`);
  crash = new CrashBeforeSave();
});

type Payment = { to: string; amount: number };
const schema = z.object({ to: z.string(), amount: z.number() });

async function pay({ to, amount }: Payment): Promise<string> {
  await appendFile(effects, `${tryToolContext()?.idempotencyKey ?? 'none'}\n`);
  return `sent ${amount} to ${to}`;
}

async function lines(): Promise<string[]> {
  return (await readFile(effects, 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

/**
 * A graph whose tools run in a hand-written node, not a ToolNode: it calls each tool the model
 * asked for, with the model's tool call (`withCall`) or with the bare arguments.
 */
function customNodeGraph(payTool: StructuredToolInterface, withCall: boolean) {
  const llm = new ChatOpenAI({
    model: 'scripted-model',
    apiKey: 'k',
    configuration: { baseURL: server.url },
    maxRetries: 0,
  });
  const model = llm.bindTools([payTool]);
  const runTools = async (state: { messages: BaseMessage[] }) => {
    const last = state.messages.at(-1) as AIMessage;
    const out: BaseMessage[] = [];
    for (const call of last.tool_calls ?? []) {
      if (withCall) out.push(await payTool.invoke({ ...call, type: 'tool_call' }));
      else {
        const text = await payTool.invoke(call.args as Payment);
        out.push(new ToolMessage({ content: String(text), tool_call_id: call.id ?? '' }));
      }
    }
    return { messages: out };
  };
  return new StateGraph(MessagesAnnotation)
    .addNode('model', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode('tools', runTools)
    .addEdge(START, 'model')
    .addConditionalEdges('model', toolsCondition, ['tools', END])
    .addEdge('tools', 'model')
    .compile();
}

function runtimeOf(payTool: StructuredToolInterface, withCall: boolean): Runtime {
  const graph = customNodeGraph(payTool, withCall);
  return new Runtime({
    sessions: new InMemorySessionStore(),
    agents: [langgraphAgent({ name: 'agent', graph })],
    journal: new InMemoryRunJournalStore(),
    postHooks: [crash],
  });
}

const payCall = { toolCalls: [{ name: 'pay', arguments: { to: 'bob', amount: 10 } }] };
const nativePay = () => tool(pay, { name: 'pay', description: 'Send money', schema });
const specPay = () =>
  LANGGRAPH_INTEGRATION.exportTool(
    defineTool({ name: 'pay', description: 'Send money', input: schema, handler: pay }),
  );

describe('langgraph runner: a tool called from a custom node (not a ToolNode)', () => {
  it('with the model tool call: a run retried after a crash runs it once, under the call key', async () => {
    // Prepare
    const runtime = runtimeOf(nativePay(), true);
    server.push(payCall, { text: 'Paid.' }, { text: 'Paid Bob.' });
    crash.arm();
    const options = { runId: 'run-node' };

    // Act
    const first = await collect(runtime.stream('agent', 's-node', 'Pay Bob 10', options));
    const again = await collect(runtime.stream('agent', 's-node', 'Pay Bob 10', options));

    // Assess
    expect(first.at(-1)).toMatchObject({ type: 'run-error' });
    expect(again.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Paid Bob.' } });
    const callId = JSON.stringify(server.requests[1]?.body).match(/call_[A-Za-z0-9]{24}/)?.[0];
    expect(await lines()).toEqual([`run-node:${callId}`]);
  });

  for (const [kind, make] of [
    ['native', nativePay],
    ['ToolSpec', specPay],
  ] as const) {
    it(`refuses a ${kind} tool called with bare arguments in a durable run, before it runs`, async () => {
      // Prepare
      const runtime = runtimeOf(make(), false);
      server.push(payCall, { text: 'Paid.' });

      // Act
      const events = await collect(runtime.stream('agent', `s-bare-${kind}`, 'Pay Bob 10'));

      // Assess
      expect(events.at(-1)).toMatchObject({
        type: 'run-error',
        code: 'unguarded-tool-call',
        message: expect.stringContaining('tool.invoke(toolCall)'),
      });
      expect(await lines()).toEqual([]);
    });
  }

  it('lets a tool declared read-only run with bare arguments (running it again changes nothing)', async () => {
    // Prepare
    const runtime = runtimeOf(withToolEffects(nativePay(), { readOnly: true }), false);
    server.push(payCall, { text: 'Looked.' });

    // Act
    const events = await collect(runtime.stream('agent', 's-read-only', 'Pay Bob 10'));

    // Assess
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Looked.' } });
    expect(await lines()).toHaveLength(1);
  });
});
