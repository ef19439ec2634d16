import { type Context, FunctionTool, LlmAgent, LogLevel, setLogLevel } from '@google/adk';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { Runtime } from '../../../lib/core/runtime.js';
import { ADK_INTEGRATION, adkAgent, geminiModel } from '../../../lib/frameworks/adk/index.js';
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

setLogLevel(LogLevel.WARN);

const server = useScriptedModelServer();
let record: ContractRecord;
beforeEach(() => {
  record = { weather: [], payments: [] };
});

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

/** One Lambda instance's worth: its own DynamoDB client, stores, agent and Runtime. */
function instance(endpoint: string, tableName: string) {
  const options = { client: newClient(endpoint), tableName };
  const ledger = new DynamoToolLedger(options);
  const executor = new Executor({ ledger });
  const model = geminiModel({ apiKey: 'test-key', baseUrl: server.url.replace(/\/v1$/, '') });
  const tools = contractTools(record).map((spec) => ADK_INTEGRATION.exportTool(spec, { executor }));
  const runtime = new Runtime({
    sessions: new DynamoSessionStore(options),
    pausedRuns: new DynamoPausedRunStore(options),
    lock: new DynamoSessionLock(options),
    agents: [adkAgent(new LlmAgent({ name: 'payer', model, tools: [...tools, visit] }))],
  });
  return { runtime, ledger, sessions: new DynamoSessionStore(options) };
}

const payCall = (amount: number) => ({
  toolCalls: [{ id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount } }],
});

describe('ADK on DynamoDB (dynalite)', () => {
  it('pauses on one runtime and is resumed by a fresh one, running the tool once', async () => {
    // Prepare
    const { tableName } = await newTable(inject('dynaliteEndpoint'));
    const first = instance(inject('dynaliteEndpoint'), tableName);
    server.reset([{ text: 'Hello Ada.' }, payCall(10), { text: 'Paid Bob 10.' }]);
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
    expect(JSON.stringify(stored?.data.state.adk)).toContain('Paid Bob 10.');
    const entries = await second.ledger.list('s-dynamo', paused.runId);
    expect(entries.map((e) => [e.callId, e.outcome])).toEqual([['call_pay_1', 'ok']]);
    await expect(
      first.runtime.resume('s-dynamo', paused.runId, [{ id: 'call_pay_1', status: 'approved' }], {
        principal: 'ada',
      }),
    ).rejects.toMatchObject({ code: 'paused-run-not-found' });
    expect(record.payments).toHaveLength(1);
  });

  it('runs an approved call with the approver’s edited arguments, resumed by a fresh runtime', async () => {
    // Prepare
    const { tableName } = await newTable(inject('dynaliteEndpoint'));
    const first = instance(inject('dynaliteEndpoint'), tableName);
    server.reset([payCall(10), { text: 'Paid Bob 7.' }]);
    const paused = await first.runtime.run('payer', 's-edit', 'Pay Bob 10');

    // Act
    const second = instance(inject('dynaliteEndpoint'), tableName);
    const done = await second.runtime.resume('s-edit', paused.runId, [
      { id: 'call_pay_1', status: 'approved', arguments: { to: 'bob', amount: 7 } },
    ]);

    // Assess
    expect(done).toMatchObject({ status: 'completed', text: 'Paid Bob 7.' });
    expect(record.payments).toEqual([{ to: 'bob', amount: 7, callId: 'call_pay_1' }]);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('sent 7 to bob');
  });

  it('keeps ADK’s own session state in the session table across turns and instances', async () => {
    // Prepare
    const { tableName } = await newTable(inject('dynaliteEndpoint'));
    const call = (id: string) => ({ toolCalls: [{ id, name: 'visit', arguments: {} }] });
    server.reset([call('v1'), { text: 'One.' }, call('v2'), { text: 'Two.' }]);

    // Act
    await instance(inject('dynaliteEndpoint'), tableName).runtime.run('payer', 's-state', 'Hi');
    const second = instance(inject('dynaliteEndpoint'), tableName);
    const events = [];
    for await (const event of second.runtime.stream('payer', 's-state', 'Again')) {
      events.push(event);
    }

    // Assess
    const results = events.filter((e) => e.type === 'tool-call-result');
    expect(results).toMatchObject([{ toolCallId: 'v2', result: { visits: 2 } }]);
    const stored = await second.sessions.load('s-state');
    expect(stored?.data.state.adk).toMatchObject({ schemaVersion: 1, state: { visits: 2 } });
  });
});
