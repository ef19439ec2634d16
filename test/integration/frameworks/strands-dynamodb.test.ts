import { describe, expect, inject, it } from 'vitest';
import { offlineBedrock } from '../../../examples/strands/bedrock.js';
import { Runtime } from '../../../lib/core/runtime.js';
import { STRANDS_INTEGRATION, strandsAgent } from '../../../lib/frameworks/strands/index.js';
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

/** One Lambda instance's worth: its own DynamoDB client, stores, agent and Runtime. */
function instance(endpoint: string, tableName: string) {
  const options = { client: newClient(endpoint), tableName };
  const ledger = new DynamoToolLedger(options);
  const executor = new Executor({ ledger });
  const tools = contractTools(record).map((spec) =>
    STRANDS_INTEGRATION.exportTool(spec, { executor }),
  );
  const runtime = new Runtime({
    sessions: new DynamoSessionStore(options),
    pausedRuns: new DynamoPausedRunStore(options),
    lock: new DynamoSessionLock(options),
    agents: [strandsAgent({ name: 'payer', model: offlineBedrock(server.url), tools })],
  });
  return { runtime, ledger, sessions: new DynamoSessionStore(options) };
}

describe('Strands on DynamoDB (dynalite)', () => {
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
      [{ id: 'call_pay_1', status: 'approved', arguments: { to: 'bob', amount: 12 } }],
      { principal: 'ada' },
    );

    // Assess: the edited arguments ran once; the resume asked the model only for the answer
    expect(paused).toMatchObject({
      status: 'paused',
      interruptions: [{ id: 'call_pay_1', kind: 'tool-approval', toolName: 'send_payment' }],
    });
    expect(done).toMatchObject({ status: 'completed', text: 'Paid Bob 10.' });
    expect(record.payments).toEqual([{ to: 'bob', amount: 12, callId: 'call_pay_1' }]);
    expect(server.requests).toHaveLength(3);
    const resumed = JSON.stringify(server.requests[2]?.body);
    expect(resumed).toContain('My name is Ada.');
    expect(resumed).toContain('sent 12 to bob');
    expect(resumed).toContain('"amount":12');
    expect(resumed).not.toContain('"amount":10');
    const entries = await second.ledger.list('s-dynamo', paused.runId);
    expect(entries.map((e) => [e.callId, e.outcome])).toEqual([['call_pay_1', 'ok']]);
    await expect(
      first.runtime.resume('s-dynamo', paused.runId, [{ id: 'call_pay_1', status: 'approved' }], {
        principal: 'ada',
      }),
    ).rejects.toMatchObject({ code: 'paused-run-not-found' });
    expect(record.payments).toHaveLength(1);
  });

  it('keeps Strands’ SessionManager snapshot in the session item, read by a fresh runtime', async () => {
    // Prepare
    const { tableName } = await newTable(inject('dynaliteEndpoint'));
    server.reset([{ text: 'Hello Ada.' }, { text: 'You are Ada.' }]);
    const first = instance(inject('dynaliteEndpoint'), tableName);
    await first.runtime.run('payer', 's-memory', 'My name is Ada.');

    // Act
    const second = instance(inject('dynaliteEndpoint'), tableName);
    const reply = await second.runtime.run('payer', 's-memory', 'Who am I?');

    // Assess: the slot is the SessionManager's storage, its latest snapshot holding the history
    expect(reply).toMatchObject({ status: 'completed', text: 'You are Ada.' });
    const stored = await second.sessions.load('s-memory');
    const slot = stored?.data.state.strands as {
      schemaVersion: number;
      entries: Record<string, string>;
    };
    const latest = Object.entries(slot.entries).find(([key]) =>
      key.endsWith('snapshot_latest.json'),
    );
    expect(latest?.[1]).toContain('You are Ada.');
    const snapshot = JSON.parse(latest?.[1] ?? '{}');
    expect(snapshot.data.messages).toHaveLength(4);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('Hello Ada.');
  });
});
