import { OpenAIProvider, Agent as SdkAgent } from '@openai/agents';
import OpenAI from 'openai';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { Runtime } from '../../../lib/core/index.js';
import { OPENAI_INTEGRATION, OpenAIModule } from '../../../lib/frameworks/openai/index.js';
import {
  DynamoPausedRunStore,
  DynamoSessionLock,
  DynamoSessionStore,
  DynamoToolLedger,
} from '../../../lib/stores/index.js';
import { defineTool, Executor } from '../../../lib/tools/index.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { newClient, newTable } from '../stores/dynamo.js';

const server = useScriptedModelServer();
let table: { endpoint: string; tableName: string };
/** What the payment tool did, across every Runtime "instance" of a test. */
const payments: { to: string; amount: number }[] = [];

beforeEach(async () => {
  payments.length = 0;
  const endpoint = inject('dynaliteEndpoint');
  table = { endpoint, ...(await newTable(endpoint)) };
});

/**
 * One Lambda instance: its own DynamoDB client, stores, lease, executor and SDK agent; nothing
 * shared with other instances but the table and the model server.
 */
function instance() {
  const client = newClient(table.endpoint);
  const options = { client, tableName: table.tableName };
  const ledger = new DynamoToolLedger(options);
  const pay = defineTool({
    name: 'send_payment',
    description: 'Send money',
    input: z.object({ to: z.string(), amount: z.number().positive() }),
    confirm: true,
    handler: (args) => {
      payments.push(args);
      return `sent ${args.amount} to ${args.to}`;
    },
  });
  const openai = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
  const native = new SdkAgent({
    name: 'payer',
    model: 'scripted-model',
    tools: [OPENAI_INTEGRATION.exportTool(pay, { executor: new Executor({ ledger }) })],
  });
  const runtime = new Runtime({
    sessions: new DynamoSessionStore(options),
    pausedRuns: new DynamoPausedRunStore(options),
    lock: new DynamoSessionLock(options),
    modules: [
      new OpenAIModule([native], {
        runConfig: {
          modelProvider: new OpenAIProvider({ openAIClient: openai, useResponses: true }),
        },
      }),
    ],
  });
  return { runtime, ledger };
}

const payCall = { id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 10 } };

async function pauseInOneInstance(sessionId: string) {
  server.push({ toolCalls: [payCall] });
  const paused = await instance().runtime.run('payer', sessionId, 'Pay Bob 10', {
    principal: 'alice',
  });
  expect(paused).toMatchObject({ status: 'paused', interruptions: [{ id: 'call_pay_1' }] });
  return paused.runId;
}

describe('pause in one Runtime, resume in another (DynamoDB on dynalite)', () => {
  it('approve: the tool runs once, with no extra model call for the decision', async () => {
    // Prepare
    const runId = await pauseInOneInstance('s-approve');
    server.push({ text: 'Paid Bob 10.' });
    const other = instance();

    // Act
    const reply = await other.runtime.resume(
      's-approve',
      runId,
      [{ id: 'call_pay_1', status: 'approved' }],
      {
        principal: 'alice',
      },
    );

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'Paid Bob 10.' });
    expect(payments).toEqual([{ to: 'bob', amount: 10 }]);
    // One request before the pause, one after the tool ran: none to re-decide the call.
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('sent 10 to bob');
    expect(await other.ledger.list('s-approve', runId)).toMatchObject([
      { callId: 'call_pay_1', tool: 'send_payment', outcome: 'ok', approval: 'approved' },
    ]);
  });

  it('deny: the tool does not run and the model reads the denial', async () => {
    // Prepare
    const runId = await pauseInOneInstance('s-deny');
    server.push({ text: 'Understood, no payment.' });

    // Act
    const reply = await instance().runtime.resume(
      's-deny',
      runId,
      [{ id: 'call_pay_1', status: 'denied', message: 'not this month' }],
      { principal: 'alice' },
    );

    // Assess
    expect(reply).toMatchObject({ text: 'Understood, no payment.' });
    expect(payments).toEqual([]);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('not this month');
  });

  it('approve with edits: the tool runs with the edited arguments', async () => {
    // Prepare
    const runId = await pauseInOneInstance('s-edit');
    server.push({ text: 'Paid Bob 5.' });
    const other = instance();

    // Act
    await other.runtime.resume(
      's-edit',
      runId,
      [{ id: 'call_pay_1', status: 'approved', arguments: { to: 'bob', amount: 5 } }],
      { principal: 'alice' },
    );

    // Assess
    expect(payments).toEqual([{ to: 'bob', amount: 5 }]);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('sent 5 to bob');
    expect(await other.ledger.list('s-edit', runId)).toMatchObject([
      { outcome: 'ok', approval: 'approved-edited' },
    ]);
  });

  it('two instances resume the same run at once: exactly one execution in the ledger', async () => {
    // Prepare
    const runId = await pauseInOneInstance('s-race');
    server.push({ text: 'Paid.' }, { text: 'Paid again?!' });
    const [a, b] = [instance(), instance()];
    const approve = [{ id: 'call_pay_1', status: 'approved' as const }];

    // Act
    const results = await Promise.allSettled([
      a.runtime.resume('s-race', runId, approve, { principal: 'alice' }),
      b.runtime.resume('s-race', runId, approve, { principal: 'alice' }),
    ]);

    // Assess
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(['run-already-resumed', 'paused-run-not-found']).toContain(loser.reason.code);
    const entries = await a.ledger.list('s-race');
    expect(entries.filter((e) => e.outcome === 'ok')).toHaveLength(1);
    expect(payments).toHaveLength(1);
  });
});
