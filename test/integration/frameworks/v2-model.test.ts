import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { Agent as MastraAgent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { jsonSchema, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../lib/core/agent.js';
import { Runtime } from '../../../lib/core/runtime.js';
import { tryToolContext } from '../../../lib/core/tool-context.js';
import { aiSdkAgent } from '../../../lib/frameworks/ai-sdk/index.js';
import { mastraAgent } from '../../../lib/frameworks/mastra/index.js';
import { jsonOnlySchema } from '../../../lib/frameworks/mastra/tools.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/memory/journal-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import { CrashBeforeSave } from '../../../lib/testing/runner-contract/index.js';
import { collect } from '../../../lib/testing/runner-contract/world.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { asV2 } from '../../helpers/v2-model.js';

// Fresh call ids in every response: a retried run finds its calls only by replay.
const server = useScriptedModelServer({ freshCallIds: true });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ak-v2-model-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Payment = { to: string; amount: number };
const parameters: Record<string, any> = {
  type: 'object',
  properties: { to: { type: 'string' }, amount: { type: 'number' } },
  required: ['to', 'amount'],
};

/** The agent under test with the v2 model and `pay` as its native tool. */
const agents: [string, (execute: (args: Payment) => Promise<string>) => Agent<any>][] = [
  [
    'ai-sdk',
    (execute) =>
      aiSdkAgent({
        name: 'agent',
        model: v2Model(),
        tools: {
          pay: tool({
            description: 'Send money',
            inputSchema: jsonSchema<Payment>(parameters),
            execute,
          }),
        },
      }),
  ],
  [
    'mastra',
    (execute) => {
      const pay = createTool({
        id: 'pay',
        description: 'Send money',
        inputSchema: jsonOnlySchema(parameters),
        execute: (args: unknown) => execute(args as Payment),
      } as Parameters<typeof createTool>[0]);
      const model = v2Model() as never;
      return mastraAgent(
        new MastraAgent({ id: 'agent', name: 'agent', instructions: '', model, tools: { pay } }),
      );
    },
  ],
];

function v2Model() {
  return asV2(createOpenAI({ baseURL: server.url, apiKey: 'k' }).chat('scripted-model'));
}

describe.each(agents)('%s runner: a model on the v2 specification', (name, agentOf) => {
  it('is journaled: a run retried after a crash does not ask the model again nor run its tool again', async () => {
    // Prepare
    const effects = join(dir, `${name}-effects.log`);
    const execute = async ({ to, amount }: Payment) => {
      await appendFile(effects, `${tryToolContext()?.idempotencyKey}\n`);
      return `sent ${amount} to ${to}`;
    };
    const crash = new CrashBeforeSave();
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      agents: [agentOf(execute)],
      journal: new InMemoryRunJournalStore(),
      postHooks: [crash],
    });
    const payCall = { toolCalls: [{ name: 'pay', arguments: { to: 'bob', amount: 10 } }] };
    server.push(payCall, { text: 'Paid.' }, { text: 'Paid Bob.' });
    crash.arm();
    const options = { runId: 'run-v2' };

    // Act
    const first = await collect(runtime.stream('agent', 's-v2', 'Pay Bob 10', options));
    const again = await collect(runtime.stream('agent', 's-v2', 'Pay Bob 10', options));

    // Assess
    expect(first.at(-1)).toMatchObject({ type: 'run-error' });
    expect(again.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Paid Bob.' } });
    const callId = JSON.stringify(server.requests[1]?.body).match(/call_[A-Za-z0-9]{24}/)?.[0];
    const lines = (await readFile(effects, 'utf8')).split('\n').filter(Boolean);
    expect(lines).toEqual([`run-v2:${callId}`]);
    // The recorded tool step was served from the journal (its call id again), not asked anew.
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[2]?.body)).toContain(callId);
  });
});
