import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, inject, it } from 'vitest';
import { Runtime } from '../../../lib/core/runtime.js';
import { LANGGRAPH_INTEGRATION, langgraphAgent } from '../../../lib/frameworks/langgraph/index.js';
import {
  DynamoPausedRunStore,
  DynamoSessionLock,
  DynamoSessionStore,
  DynamoToolLedger,
} from '../../../lib/stores/index.js';
import { type ContractRecord, contractTools } from '../../../lib/testing/runner-contract/index.js';
import { Executor } from '../../../lib/tools/executor.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { newClient, newTable } from '../stores/dynamo.js';

const server = useScriptedModelServer();
const record: ContractRecord = { weather: [], payments: [] };

/** One Lambda instance's worth: its own DynamoDB client, stores, graph and Runtime. */
function instance(endpoint: string, tableName: string) {
  const options = { client: newClient(endpoint), tableName };
  const ledger = new DynamoToolLedger(options);
  const executor = new Executor({ ledger });
  const llm = new ChatOpenAI({
    model: 'scripted-model',
    apiKey: 'test-key',
    configuration: { baseURL: server.url },
    maxRetries: 0,
  });
  const tools = contractTools(record).map((spec) =>
    LANGGRAPH_INTEGRATION.exportTool(spec, { executor }),
  );
  const runtime = new Runtime({
    sessions: new DynamoSessionStore(options),
    pausedRuns: new DynamoPausedRunStore(options),
    lock: new DynamoSessionLock(options),
    agents: [langgraphAgent({ name: 'payer', graph: createReactAgent({ llm, tools }) })],
  });
  return { runtime, ledger, sessions: new DynamoSessionStore(options) };
}

describe('LangGraph on DynamoDB (dynalite)', () => {
  it('pauses on one runtime and is resumed by a fresh one, running the tool once', async () => {
    // Prepare
    const { tableName } = await newTable(inject('dynaliteEndpoint'));
    const first = instance(inject('dynaliteEndpoint'), tableName);
    server.reset([
      { text: 'Hello Ada.' },
      {
        toolCalls: [
          { id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 10 } },
        ],
      },
      { text: 'Paid Bob 10.' },
    ]);
    await first.runtime.run('payer', 's-dynamo', 'My name is Ada.', { principal: 'ada' });

    // Act
    const paused = await first.runtime.run('payer', 's-dynamo', 'Pay Bob 10', { principal: 'ada' });
    const second = instance(inject('dynaliteEndpoint'), tableName);
    const done = await second.runtime.resume(
      's-dynamo',
      paused.runId,
      [{ id: 'call_pay_1', status: 'approved' }],
      { principal: 'ada' },
    );

    // Assess
    expect(paused).toMatchObject({
      status: 'paused',
      interruptions: [{ id: 'call_pay_1', kind: 'tool-approval', toolName: 'send_payment' }],
    });
    expect(done).toMatchObject({ status: 'completed', text: 'Paid Bob 10.' });
    expect(record.payments).toEqual([{ to: 'bob', amount: 10, callId: 'call_pay_1' }]);
    expect(server.requests).toHaveLength(3);
    const resumed = JSON.stringify(server.requests[2]?.body);
    expect(resumed).toContain('My name is Ada.');
    expect(resumed).toContain('sent 10 to bob');
    const stored = await second.sessions.load('s-dynamo');
    expect(stored?.data.paused).toBeUndefined();
    expect(JSON.stringify(stored?.data.state.langgraph)).toContain('Paid Bob 10.');
    const entries = await second.ledger.list('s-dynamo', paused.runId);
    expect(entries.map((e) => [e.callId, e.outcome])).toEqual([['call_pay_1', 'ok']]);
    await expect(
      first.runtime.resume('s-dynamo', paused.runId, [{ id: 'call_pay_1', status: 'approved' }], {
        principal: 'ada',
      }),
    ).rejects.toMatchObject({ code: 'paused-run-not-found' });
    expect(record.payments).toHaveLength(1);
  });
});
