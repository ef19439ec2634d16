import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
// Mastra journals v3-spec models (AI SDK 6 providers): see docs/frameworks.md.
import { createOpenAI as createOpenAIv3 } from '@ai-sdk/openai-v3';
import { type Context, FunctionTool, LlmAgent, LogLevel, setLogLevel } from '@google/adk';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { Agent as MastraAgent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { OpenAIProvider, Agent as SdkAgent } from '@openai/agents';
import OpenAI from 'openai';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { offlineBedrock } from '../../../examples/strands/bedrock.js';
import type { Agent } from '../../../lib/core/agent.js';
import { Runtime } from '../../../lib/core/runtime.js';
import { ADK_INTEGRATION, adkAgent, geminiModel } from '../../../lib/frameworks/adk/index.js';
import {
  AI_SDK_INTEGRATION,
  aiSdkAgent,
  aiSdkToolSet,
} from '../../../lib/frameworks/ai-sdk/index.js';
import { LANGGRAPH_INTEGRATION, langgraphAgent } from '../../../lib/frameworks/langgraph/index.js';
import {
  MASTRA_INTEGRATION,
  mastraAgent,
  mastraToolSet,
} from '../../../lib/frameworks/mastra/index.js';
import { OPENAI_INTEGRATION, openaiAgent } from '../../../lib/frameworks/openai/index.js';
import { OpenAIRunner } from '../../../lib/frameworks/openai/runner.js';
import { STRANDS_INTEGRATION, strandsAgent } from '../../../lib/frameworks/strands/index.js';
import {
  DynamoPausedRunStore,
  DynamoSessionLock,
  DynamoSessionStore,
  DynamoToolLedger,
} from '../../../lib/stores/index.js';
import type { ScriptEntry } from '../../../lib/testing/index.js';
import { type ContractRecord, contractTools } from '../../../lib/testing/runner-contract/index.js';
import { Executor } from '../../../lib/tools/executor.js';
import type { ToolSpec } from '../../../lib/tools/spec.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { newClient, newTable } from '../stores/dynamo.js';

// One suite for every framework on DynamoDB (dynalite): a pause on one Runtime resumed by a fresh
// one, edits, denials, a race of two instances and the framework's own state in the session item.
// Each case runs for every framework in FRAMEWORKS; what only one framework has (a native tool
// of its own) is that framework's `native` cases, beside the shared ones.

setLogLevel(LogLevel.WARN);

const server = useScriptedModelServer();
let record: ContractRecord;
let table: { endpoint: string; tableName: string };
beforeEach(async () => {
  record = { weather: [], payments: [] };
  const endpoint = inject('dynaliteEndpoint');
  table = { endpoint, ...(await newTable(endpoint)) };
});

interface AgentEnv {
  modelUrl: string;
  /** The contract tools exported through the framework's integration. */
  tools: readonly ToolSpec[];
  executor: Executor;
}

type Instance = ReturnType<typeof instance>;

interface Framework {
  /** Its runner's name: the key of its own state in the session item (`data.state.<name>`). */
  name: string;
  agent(env: AgentEnv): Agent;
  /** How the framework's own memory shows in its slot after "Who am I?" → "You are Ada.". */
  assessSlot?(slot: unknown): void;
  /** Cases only this framework has (its native tools). */
  native?: [name: string, run: () => Promise<void>][];
}

/** The contract tools exported through a framework's integration. */
function exported<T>(
  env: AgentEnv,
  integration: { exportTool(spec: ToolSpec, options: { executor: Executor }): T },
): T[] {
  return env.tools.map((spec) => integration.exportTool(spec, { executor: env.executor }));
}

/** A native ADK tool that counts its calls in ADK's own session state. */
const visit = new FunctionTool({
  name: 'visit',
  description: 'Counts visits in the session state',
  execute: (_args: unknown, context?: Context) => {
    const visits = Number(context?.state.get('visits') ?? 0) + 1;
    context?.state.set('visits', visits);
    return { visits };
  },
});

const transfers = join(mkdtempSync(join(tmpdir(), 'mastra-dynamo-')), 'transfers.log');

/** A native Mastra tool behind Mastra's own approval gate; every run appends one line. */
function transferTool() {
  return createTool({
    id: 'transfer',
    description: 'Transfer money',
    inputSchema: z.object({ to: z.string(), amount: z.number() }),
    requireApproval: true,
    execute: async ({ to, amount }) => {
      appendFileSync(transfers, `${to} ${amount}\n`);
      return `transferred ${amount} to ${to}`;
    },
  });
}

const FRAMEWORKS: Framework[] = [
  {
    name: 'openai',
    agent: (env) => {
      const client = new OpenAI({ apiKey: 'k', baseURL: env.modelUrl, maxRetries: 0 });
      const native = new SdkAgent({
        name: 'payer',
        model: 'scripted-model',
        tools: exported(env, OPENAI_INTEGRATION),
      });
      const modelProvider = new OpenAIProvider({ openAIClient: client, useResponses: true });
      return openaiAgent(native, { runner: new OpenAIRunner({ runConfig: { modelProvider } }) });
    },
  },
  {
    name: 'ai-sdk',
    agent: (env) =>
      aiSdkAgent({
        name: 'payer',
        model: createOpenAI({ baseURL: env.modelUrl, apiKey: 'test-key' })('scripted-model'),
        tools: aiSdkToolSet(exported(env, AI_SDK_INTEGRATION)),
      }),
  },
  {
    name: 'langgraph',
    agent: (env) => {
      const llm = new ChatOpenAI({
        model: 'scripted-model',
        apiKey: 'test-key',
        configuration: { baseURL: env.modelUrl },
        maxRetries: 0,
      });
      const tools = exported(env, LANGGRAPH_INTEGRATION);
      return langgraphAgent({ name: 'payer', graph: createReactAgent({ llm, tools }) });
    },
  },
  {
    name: 'adk',
    agent: (env) => {
      const model = geminiModel({ apiKey: 'test-key', baseUrl: env.modelUrl.replace(/\/v1$/, '') });
      const tools = [...exported(env, ADK_INTEGRATION), visit];
      return adkAgent(new LlmAgent({ name: 'payer', model, tools }));
    },
    native: [
      [
        'keeps ADK’s own session state (a native tool’s) across turns and instances',
        async () => {
          // Prepare
          const call = (id: string) => ({ toolCalls: [{ id, name: 'visit', arguments: {} }] });
          server.reset([call('v1'), { text: 'One.' }, call('v2'), { text: 'Two.' }]);
          const adk = FRAMEWORKS.find((f) => f.name === 'adk') as Framework;

          // Act
          await instance(adk).runtime.run('payer', 's-state', 'Hi');
          const second = instance(adk);
          const events = [];
          for await (const event of second.runtime.stream('payer', 's-state', 'Again')) {
            events.push(event);
          }

          // Assess
          const results = events.filter((e) => e.type === 'tool-call-result');
          expect(results).toMatchObject([{ toolCallId: 'v2', result: { visits: 2 } }]);
          const stored = await second.sessions.load('s-state');
          expect(stored?.data.state.adk).toMatchObject({ schemaVersion: 1, state: { visits: 2 } });
        },
      ],
    ],
  },
  {
    name: 'strands',
    agent: (env) =>
      strandsAgent({
        name: 'payer',
        model: offlineBedrock(env.modelUrl),
        tools: exported(env, STRANDS_INTEGRATION),
      }),
    // The slot is the SessionManager's storage, its latest snapshot holding the history.
    assessSlot: (slot) => {
      const entries = (slot as { entries: Record<string, string> }).entries;
      const latest = Object.entries(entries).find(([key]) => key.endsWith('snapshot_latest.json'));
      expect(latest?.[1]).toContain('You are Ada.');
      expect(JSON.parse(latest?.[1] ?? '{}').data.messages).toHaveLength(4);
    },
  },
  {
    name: 'mastra',
    agent: (env) =>
      mastraAgent(
        new MastraAgent({
          id: 'payer',
          name: 'payer',
          instructions: 'You move money.',
          model: createOpenAIv3({ baseURL: env.modelUrl, apiKey: 'test-key' }).chat(
            'scripted-model',
          ),
          tools: {
            ...mastraToolSet(exported(env, MASTRA_INTEGRATION)),
            transfer: transferTool(),
          },
        }),
      ),
    native: [
      [
        'resumes a native tool (Mastra’s own approval gate) with edits on a fresh runtime; a denial runs nothing',
        async () => {
          // Prepare
          const mastra = FRAMEWORKS.find((f) => f.name === 'mastra') as Framework;
          const first = instance(mastra);
          const call = (id: string) => ({
            toolCalls: [{ id, name: 'transfer', arguments: { to: 'bob', amount: 500 } }],
          });
          server.reset([
            call('call_t_1'),
            { text: 'Sent 50.' },
            call('call_t_2'),
            { text: 'Not sent.' },
          ]);
          const before = readLines();

          // Act
          const paused = await first.runtime.run('payer', 's-native', 'Send Bob 500');
          const edited = await instance(mastra).runtime.resume('s-native', paused.runId, [
            { id: 'call_t_1', status: 'approved', arguments: { to: 'bob', amount: 50 } },
          ]);
          const again = await first.runtime.run('payer', 's-native', 'Send Bob 500 again');
          const denied = await instance(mastra).runtime.resume('s-native', again.runId, [
            { id: 'call_t_2', status: 'denied', message: 'too much' },
          ]);

          // Assess
          expect(paused).toMatchObject({
            status: 'paused',
            interruptions: [{ id: 'call_t_1', toolName: 'transfer', arguments: { amount: 500 } }],
          });
          expect(edited).toMatchObject({ status: 'completed', text: 'Sent 50.' });
          expect(denied).toMatchObject({ status: 'completed', text: 'Not sent.' });
          expect(readLines().slice(before.length)).toEqual(['bob 50']);
          expect(server.requests).toHaveLength(4);
          // The model reads the edited call and its result, then the denial.
          expect(JSON.stringify(server.requests[1]?.body)).toContain('transferred 50 to bob');
          expect(JSON.stringify(server.requests[3]?.body)).toContain('too much');
        },
      ],
    ],
  },
];

function readLines(): string[] {
  try {
    return readFileSync(transfers, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * One Lambda instance: its own DynamoDB client, stores, lease, executor and agent; nothing shared
 * with other instances but the table and the model server.
 */
function instance(framework: Framework) {
  const options = { client: newClient(table.endpoint), tableName: table.tableName };
  const ledger = new DynamoToolLedger(options);
  const executor = new Executor({ ledger });
  const tools = contractTools(record);
  const runtime = new Runtime({
    sessions: new DynamoSessionStore(options),
    pausedRuns: new DynamoPausedRunStore(options),
    lock: new DynamoSessionLock(options),
    agents: [framework.agent({ modelUrl: server.url, tools, executor })],
  });
  return { runtime, ledger, sessions: new DynamoSessionStore(options) };
}

const payCall = (amount: number): ScriptEntry => ({
  toolCalls: [{ id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount } }],
});
const approve = [{ id: 'call_pay_1', status: 'approved' as const }];
const as = { principal: 'ada' };

async function pauseIn(first: Instance, sessionId: string) {
  const paused = await first.runtime.run('payer', sessionId, 'Pay Bob 10', as);
  expect(paused).toMatchObject({
    status: 'paused',
    interruptions: [{ id: 'call_pay_1', kind: 'tool-approval', toolName: 'send_payment' }],
  });
  return paused.runId;
}

describe.each(FRAMEWORKS)('$name on DynamoDB (dynalite)', (framework) => {
  it('pauses on one runtime, is resumed by a fresh one (the tool once), and the next turn on a third sends the whole thread', async () => {
    // Prepare
    const first = instance(framework);
    server.reset([
      { text: 'Hello Ada.' },
      payCall(10),
      { text: 'Paid Bob 10.' },
      { text: 'You are Ada.' },
    ]);
    await first.runtime.run('payer', 's-dynamo', 'My name is Ada.', as);
    const runId = await pauseIn(first, 's-dynamo');

    // Act
    const second = instance(framework);
    const done = await second.runtime.resume('s-dynamo', runId, approve, as);
    const after = await instance(framework).runtime.run('payer', 's-dynamo', 'Who am I?', as);

    // Assess: one model call before the pause per turn, one after the tool: none to re-decide it.
    expect(done).toMatchObject({ status: 'completed', text: 'Paid Bob 10.' });
    expect(record.payments).toEqual([{ to: 'bob', amount: 10, callId: 'call_pay_1' }]);
    expect(server.requests).toHaveLength(4);
    const resumed = JSON.stringify(server.requests[2]?.body);
    expect(resumed).toContain('My name is Ada.');
    expect(resumed).toContain('sent 10 to bob');
    expect(after).toMatchObject({ status: 'completed', text: 'You are Ada.' });
    const next = JSON.stringify(server.requests[3]?.body);
    for (const said of ['My name is Ada.', 'Hello Ada.', 'Pay Bob 10', 'Paid Bob 10.']) {
      expect(next).toContain(said);
    }
    const stored = await second.sessions.load('s-dynamo');
    expect(stored?.data.paused).toBeUndefined();
    expect(JSON.stringify(stored?.data.state[framework.name])).toContain('Paid Bob 10.');
    expect(await second.ledger.list('s-dynamo', runId)).toMatchObject([
      { callId: 'call_pay_1', tool: 'send_payment', outcome: 'ok', approval: 'approved' },
    ]);
    // The first instance's stale view of the pause is refused, and runs nothing.
    await expect(first.runtime.resume('s-dynamo', runId, approve, as)).rejects.toMatchObject({
      code: 'paused-run-not-found',
    });
    expect(record.payments).toHaveLength(1);
  });

  it('runs an approved call with the approver’s edited arguments, resumed by a fresh runtime', async () => {
    // Prepare
    server.reset([payCall(10), { text: 'Paid Bob 7.' }]);
    const runId = await pauseIn(instance(framework), 's-edit');

    // Act
    const other = instance(framework);
    const done = await other.runtime.resume(
      's-edit',
      runId,
      [{ id: 'call_pay_1', status: 'approved', arguments: { to: 'bob', amount: 7 } }],
      as,
    );

    // Assess
    expect(done).toMatchObject({ status: 'completed', text: 'Paid Bob 7.' });
    expect(record.payments).toEqual([{ to: 'bob', amount: 7, callId: 'call_pay_1' }]);
    expect(server.requests).toHaveLength(2);
    // Arguments are a JSON string in some APIs, an object in others: read both alike.
    const resumed = JSON.stringify(server.requests[1]?.body).replaceAll('\\"', '"');
    expect(resumed).toContain('sent 7 to bob');
    // The model reads the call as approved (edited), not as it first asked for it.
    expect(resumed).toContain('"amount":7');
    expect(resumed).not.toContain('"amount":10');
    expect(await other.ledger.list('s-edit', runId)).toMatchObject([
      { outcome: 'ok', approval: 'approved-edited' },
    ]);
  });

  it('denied on a fresh runtime: the tool does not run and the model reads the denial', async () => {
    // Prepare
    server.reset([payCall(10), { text: 'Understood, no payment.' }]);
    const runId = await pauseIn(instance(framework), 's-deny');

    // Act
    const reply = await instance(framework).runtime.resume(
      's-deny',
      runId,
      [{ id: 'call_pay_1', status: 'denied', message: 'not this month' }],
      as,
    );

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'Understood, no payment.' });
    expect(record.payments).toEqual([]);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('not this month');
  });

  it('two instances resume the same run at once: exactly one execution in the ledger', async () => {
    // Prepare
    server.reset([payCall(10), { text: 'Paid.' }, { text: 'Paid again?!' }]);
    const runId = await pauseIn(instance(framework), 's-race');
    const [a, b] = [instance(framework), instance(framework)];

    // Act
    const results = await Promise.allSettled([
      a.runtime.resume('s-race', runId, approve, as),
      b.runtime.resume('s-race', runId, approve, as),
    ]);

    // Assess
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(['run-already-resumed', 'paused-run-not-found']).toContain(loser.reason.code);
    const entries = await a.ledger.list('s-race');
    expect(entries.filter((e) => e.outcome === 'ok')).toHaveLength(1);
    expect(record.payments).toHaveLength(1);
  });

  it('keeps its own state in the session item, read by a fresh runtime', async () => {
    // Prepare
    server.reset([{ text: 'Hello Ada.' }, { text: 'You are Ada.' }]);
    await instance(framework).runtime.run('payer', 's-memory', 'My name is Ada.', as);

    // Act
    const second = instance(framework);
    const reply = await second.runtime.run('payer', 's-memory', 'Who am I?', as);

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'You are Ada.' });
    const asked = JSON.stringify(server.requests[1]?.body);
    expect(asked).toContain('My name is Ada.');
    expect(asked).toContain('Hello Ada.');
    const stored = await second.sessions.load('s-memory');
    const slot = stored?.data.state[framework.name];
    expect(JSON.stringify(slot)).toContain('You are Ada.');
    framework.assessSlot?.(slot);
  });

  for (const [name, run] of framework.native ?? []) it(name, run);
});
