import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { Runtime } from '../../../lib/core/runtime.js';
import {
  MASTRA_INTEGRATION,
  mastraAgent,
  mastraToolSet,
} from '../../../lib/frameworks/mastra/index.js';
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
const ledgerFile = join(mkdtempSync(join(tmpdir(), 'mastra-dynamo-')), 'transfers.log');

/** A native Mastra tool behind Mastra's own approval gate; every run appends one line. */
function transferTool() {
  return createTool({
    id: 'transfer',
    description: 'Transfer money',
    inputSchema: z.object({ to: z.string(), amount: z.number() }),
    requireApproval: true,
    execute: async ({ to, amount }) => {
      appendFileSync(ledgerFile, `${to} ${amount}\n`);
      return `transferred ${amount} to ${to}`;
    },
  });
}

/** One Lambda instance's worth: its own DynamoDB client, stores, Mastra agent and Runtime. */
function instance(endpoint: string, tableName: string) {
  const options = { client: newClient(endpoint), tableName };
  const ledger = new DynamoToolLedger(options);
  const executor = new Executor({ ledger });
  const specs = contractTools(record).map((spec) =>
    MASTRA_INTEGRATION.exportTool(spec, { executor }),
  );
  const native = new Agent({
    id: 'payer',
    name: 'payer',
    instructions: 'You move money.',
    model: createOpenAI({ baseURL: server.url, apiKey: 'test-key' }).chat('scripted-model'),
    tools: { ...mastraToolSet(specs), transfer: transferTool() },
  });
  const runtime = new Runtime({
    sessions: new DynamoSessionStore(options),
    pausedRuns: new DynamoPausedRunStore(options),
    lock: new DynamoSessionLock(options),
    agents: [mastraAgent(native)],
  });
  return { runtime, ledger, sessions: new DynamoSessionStore(options) };
}

describe('Mastra on DynamoDB (dynalite)', () => {
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
      { text: 'You are Ada.' },
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
    const third = instance(inject('dynaliteEndpoint'), tableName);
    const after = await third.runtime.run('payer', 's-dynamo', 'Who am I?', { principal: 'ada' });

    // Assess
    expect(paused).toMatchObject({
      status: 'paused',
      interruptions: [{ id: 'call_pay_1', kind: 'tool-approval', toolName: 'send_payment' }],
    });
    expect(done).toMatchObject({ status: 'completed', text: 'Paid Bob 10.' });
    expect(record.payments).toEqual([{ to: 'bob', amount: 10, callId: 'call_pay_1' }]);
    // The resume asked the model once, for the answer after the tool: never for the call again.
    expect(server.requests).toHaveLength(4);
    const resumed = JSON.stringify(server.requests[2]?.body);
    expect(resumed).toContain('My name is Ada.');
    expect(resumed).toContain('sent 10 to bob');
    // The thread lives in the table: the next turn on a third instance sends all of it.
    expect(after).toMatchObject({ status: 'completed', text: 'You are Ada.' });
    const next = JSON.stringify(server.requests[3]?.body);
    for (const said of ['My name is Ada.', 'Hello Ada.', 'Pay Bob 10', 'Paid Bob 10.']) {
      expect(next).toContain(said);
    }
    const stored = await second.sessions.load('s-dynamo');
    expect(stored?.data.paused).toBeUndefined();
    const entries = await second.ledger.list('s-dynamo', paused.runId);
    expect(entries.map((e) => [e.callId, e.outcome])).toEqual([['call_pay_1', 'ok']]);
    await expect(
      first.runtime.resume('s-dynamo', paused.runId, [{ id: 'call_pay_1', status: 'approved' }], {
        principal: 'ada',
      }),
    ).rejects.toMatchObject({ code: 'paused-run-not-found' });
    expect(record.payments).toHaveLength(1);
  });

  it('resumes a native tool with edited arguments on a fresh runtime; a denial runs nothing', async () => {
    // Prepare
    const { tableName } = await newTable(inject('dynaliteEndpoint'));
    const first = instance(inject('dynaliteEndpoint'), tableName);
    const call = (id: string) => ({
      toolCalls: [{ id, name: 'transfer', arguments: { to: 'bob', amount: 500 } }],
    });
    server.reset([call('call_t_1'), { text: 'Sent 50.' }, call('call_t_2'), { text: 'Not sent.' }]);

    // Act
    const paused = await first.runtime.run('payer', 's-edit', 'Send Bob 500');
    const edited = await instance(inject('dynaliteEndpoint'), tableName).runtime.resume(
      's-edit',
      paused.runId,
      [{ id: 'call_t_1', status: 'approved', arguments: { to: 'bob', amount: 50 } }],
    );
    const again = await first.runtime.run('payer', 's-edit', 'Send Bob 500 again');
    const denied = await instance(inject('dynaliteEndpoint'), tableName).runtime.resume(
      's-edit',
      again.runId,
      [{ id: 'call_t_2', status: 'denied', message: 'too much' }],
    );

    // Assess
    expect(paused).toMatchObject({
      status: 'paused',
      interruptions: [{ id: 'call_t_1', toolName: 'transfer', arguments: { amount: 500 } }],
    });
    expect(edited).toMatchObject({ status: 'completed', text: 'Sent 50.' });
    expect(denied).toMatchObject({ status: 'completed', text: 'Not sent.' });
    expect(readFileSync(ledgerFile, 'utf8')).toBe('bob 50\n');
    expect(server.requests).toHaveLength(4);
    // The model reads the edited call and its result, then the denial.
    expect(JSON.stringify(server.requests[1]?.body)).toContain('transferred 50 to bob');
    expect(JSON.stringify(server.requests[3]?.body)).toContain('too much');
  });
});
