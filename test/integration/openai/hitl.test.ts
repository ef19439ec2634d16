import { OpenAIProvider, Agent as SdkAgent, tool } from '@openai/agents';
import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { StreamEvent } from '../../../lib/core/events.js';
import { OpenAIModule } from '../../../lib/frameworks/openai/index.js';
import { Runtime } from '../../../lib/index.js';
import { InMemoryPausedRunStore } from '../../../lib/stores/memory/paused-run-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { collect } from './setup.js';

const server = useScriptedModelServer();
const payments: { to: string; amount: number }[] = [];

const sendPayment = tool({
  name: 'send_payment',
  description: 'Send money',
  parameters: z.object({ to: z.string(), amount: z.number() }),
  needsApproval: true,
  execute: async (args) => {
    payments.push(args);
    return `sent ${args.amount} to ${args.to}`;
  },
});

function makeRuntime() {
  // No client retries: a scripted 500 must reach the runner as it is.
  const client = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
  const provider = new OpenAIProvider({ openAIClient: client, useResponses: true });
  const native = new SdkAgent({ name: 'payer', model: 'scripted-model', tools: [sendPayment] });
  const sessions = new InMemorySessionStore();
  const pausedRuns = new InMemoryPausedRunStore();
  const runtime = new Runtime({
    sessions,
    pausedRuns,
    modules: [new OpenAIModule([native], { runConfig: { modelProvider: provider } })],
  });
  return { runtime, sessions, pausedRuns };
}

const payCall = { id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 10 } };

beforeEach(() => {
  payments.length = 0;
});

describe('OpenAI runner: pause and resume', () => {
  it('pauses on needsApproval, resumes once on approval without asking the model again for the call', async () => {
    // Prepare
    const { runtime, sessions, pausedRuns } = makeRuntime();
    server.push({ toolCalls: [payCall] }, { text: 'Paid Bob 10.' });

    // Act
    const paused = await runtime.run('payer', 's1', 'Pay Bob 10', { principal: 'alice' });

    // Assess: paused, recorded, and the session refuses a new turn meanwhile.
    expect(paused).toMatchObject({
      status: 'paused',
      interruptions: [
        {
          id: 'call_pay_1',
          kind: 'tool-approval',
          toolName: 'send_payment',
          arguments: { to: 'bob', amount: 10 },
        },
      ],
    });
    expect(payments).toEqual([]);
    expect(await pausedRuns.get('s1', paused.runId)).toMatchObject({
      status: 'pending',
      agent: 'payer',
    });
    await expect(
      runtime.run('payer', 's1', 'Hello?', { principal: 'alice' }),
    ).rejects.toMatchObject({
      code: 'session-paused',
    });

    // Act: approve
    const done = await runtime.resume(
      's1',
      paused.runId,
      [{ id: 'call_pay_1', status: 'approved' }],
      {
        principal: 'alice',
      },
    );

    // Assess
    expect(done).toMatchObject({ status: 'completed', text: 'Paid Bob 10.', runId: paused.runId });
    expect(payments).toEqual([{ to: 'bob', amount: 10 }]);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('sent 10 to bob');
    expect(await pausedRuns.get('s1', paused.runId)).toBeUndefined();
    const stored = await sessions.load('s1');
    expect(stored?.data.paused).toBeUndefined();
    expect(JSON.stringify(stored?.data.state)).toContain('Paid Bob 10.');
    // A second resume is answered with an error, never a second execution.
    await expect(
      runtime.resume('s1', paused.runId, [{ id: 'call_pay_1', status: 'approved' }], {
        principal: 'alice',
      }),
    ).rejects.toMatchObject({ code: 'paused-run-not-found' });
    expect(payments).toHaveLength(1);
    // The session takes new turns again, with the whole history.
    server.push({ text: 'You paid Bob.' });
    await runtime.run('payer', 's1', 'What did I do?', { principal: 'alice' });
    expect(JSON.stringify(server.requests[2]?.body)).toContain('Pay Bob 10');
  });

  it('denies: the tool does not run and the model sees the approver’s message', async () => {
    // Prepare
    const { runtime } = makeRuntime();
    server.push({ toolCalls: [payCall] }, { text: 'Okay, I will not pay.' });
    const paused = await runtime.run('payer', 's2', 'Pay Bob 10');

    // Act
    const done = await runtime.resume('s2', paused.runId, [
      { id: 'call_pay_1', status: 'denied', message: 'Bob was paid yesterday' },
    ]);

    // Assess
    expect(done).toMatchObject({ status: 'completed', text: 'Okay, I will not pay.' });
    expect(payments).toEqual([]);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('Bob was paid yesterday');
  });

  it('approves with edited arguments: the tool runs with them', async () => {
    // Prepare
    const { runtime } = makeRuntime();
    server.push({ toolCalls: [payCall] }, { text: 'Paid.' });
    const paused = await runtime.run('payer', 's3', 'Pay Bob 10');

    // Act
    await runtime.resume('s3', paused.runId, [
      { id: 'call_pay_1', status: 'approved', arguments: { to: 'bob', amount: 5 } },
    ]);

    // Assess
    expect(payments).toEqual([{ to: 'bob', amount: 5 }]);
  });

  it('checks decisions and owner before anything runs', async () => {
    // Prepare
    const { runtime, pausedRuns } = makeRuntime();
    server.push({ toolCalls: [payCall] });
    const paused = await runtime.run('payer', 's4', 'Pay Bob 10', { principal: 'alice' });
    const decide = (decisions: any[], principal = 'alice') =>
      runtime.resume('s4', paused.runId, decisions, { principal });

    // Act + Assess
    await expect(decide([{ id: 'call_other', status: 'approved' }])).rejects.toMatchObject({
      code: 'invalid-decisions',
    });
    await expect(decide([])).rejects.toMatchObject({ code: 'invalid-request' });
    await expect(decide([{ id: 'call_pay_1', status: 'maybe' }])).rejects.toMatchObject({
      code: 'invalid-request',
    });
    await expect(
      decide([{ id: 'call_pay_1', status: 'approved' }], 'mallory'),
    ).rejects.toMatchObject({
      code: 'session-forbidden',
    });
    await expect(
      runtime.resume('s4', 'no-such-run', [{ id: 'x', status: 'approved' }]),
    ).rejects.toMatchObject({
      code: 'paused-run-not-found',
    });
    expect(payments).toEqual([]);
    expect(await pausedRuns.get('s4', paused.runId)).toMatchObject({ status: 'pending' });
  });

  it('keeps the paused run when a resume fails, so the decision can be sent again', async () => {
    // Prepare
    const { runtime, pausedRuns } = makeRuntime();
    server.push(
      { toolCalls: [payCall] },
      { error: { status: 500, message: 'model down' } },
      { text: 'Paid.' },
    );
    const paused = await runtime.run('payer', 's5', 'Pay Bob 10');
    const approve = [{ id: 'call_pay_1', status: 'approved' as const }];

    // Act
    const failed = runtime.resume('s5', paused.runId, approve);

    // Assess
    await expect(failed).rejects.toMatchObject({ code: 'model-error' });
    expect(await pausedRuns.get('s5', paused.runId)).toMatchObject({ status: 'pending' });
    expect(await runtime.resume('s5', paused.runId, approve)).toMatchObject({ text: 'Paid.' });
  });

  it('two concurrent resumes: exactly one executes', async () => {
    // Prepare
    const { runtime } = makeRuntime();
    server.push({ toolCalls: [payCall] }, { text: 'Paid.' }, { text: 'Paid twice?!' });
    const paused = await runtime.run('payer', 's6', 'Pay Bob 10');
    const approve = [{ id: 'call_pay_1', status: 'approved' as const }];

    // Act
    const results = await Promise.allSettled([
      runtime.resume('s6', paused.runId, approve),
      runtime.resume('s6', paused.runId, approve),
    ]);

    // Assess
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(['run-already-resumed', 'paused-run-not-found']).toContain(rejected.reason.code);
    expect(payments).toHaveLength(1);
  });

  it('streams: run-paused ends the first stream; resumeStream has the shape of an ordinary turn', async () => {
    // Prepare
    const { runtime } = makeRuntime();
    server.push({ toolCalls: [payCall] }, { text: 'Paid Bob.' });

    // Act
    const first = await collect(runtime.stream('payer', 's7', 'Pay Bob 10'));
    const pausedEvent = first.at(-1) as Extract<StreamEvent, { type: 'run-paused' }>;
    const second = await collect(
      runtime.resumeStream('s7', pausedEvent.runId, [{ id: 'call_pay_1', status: 'approved' }]),
    );

    // Assess
    expect(pausedEvent).toMatchObject({
      type: 'run-paused',
      interruptions: [{ id: 'call_pay_1' }],
    });
    expect(first.map((e) => e.type)).not.toContain('run-finished');
    expect(second[0]).toMatchObject({ type: 'run-started', runId: pausedEvent.runId });
    const types = second.map((e) => e.type);
    expect(types).toContain('tool-call-result');
    expect(types.indexOf('tool-call-result')).toBeLessThan(types.indexOf('message-start'));
    expect(second.at(-1)).toMatchObject({ type: 'run-finished', reply: { text: 'Paid Bob.' } });
  });
});
