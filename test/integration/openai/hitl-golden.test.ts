import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenAIProvider, Agent as SdkAgent, tool } from '@openai/agents';
import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parsePausedRun } from '../../../lib/core/paused-run-migrations.js';
import { newSession } from '../../../lib/core/session.js';
import { OpenAIModule } from '../../../lib/frameworks/openai/index.js';
import { Runtime } from '../../../lib/index.js';
import { InMemoryPausedRunStore } from '../../../lib/stores/memory/paused-run-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';

const server = useScriptedModelServer();
const payments: unknown[] = [];
const golden = JSON.parse(
  readFileSync(
    join(import.meta.dirname, '../../fixtures/paused-runs/v1/openai-tool-approval.json'),
    'utf8',
  ),
);

function makeRuntime(clock: { now: number }) {
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
  const client = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
  const native = new SdkAgent({ name: 'payer', model: 'scripted-model', tools: [sendPayment] });
  const now = () => clock.now;
  const pausedRuns = new InMemoryPausedRunStore({ now });
  const sessions = new InMemorySessionStore();
  const runtime = new Runtime({
    sessions,
    pausedRuns,
    now,
    pausedRunTtlMs: 60_000,
    modules: [
      new OpenAIModule([native], {
        runConfig: {
          modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }),
        },
      }),
    ],
  });
  return { runtime, pausedRuns, sessions };
}

beforeEach(() => {
  payments.length = 0;
});

describe('OpenAI paused runs across versions and time', () => {
  it('resumes the golden v1 fixture in a fresh runtime with one model call', async () => {
    // Prepare: a runtime that never saw the run, as another Lambda instance would be.
    const { runtime, pausedRuns, sessions } = makeRuntime({ now: golden.createdAt + 1_000 });
    await pausedRuns.put(parsePausedRun(golden));
    // The session head the pause saved, of that version too: no incarnation yet, as the run.
    const { incarnation: _none, ...head } = newSession(golden.sessionId, golden.createdAt, 'alice');
    await sessions.save(
      { ...head, paused: [{ runId: golden.runId, expiresAt: golden.expiresAt }] },
      0,
    );
    server.push({ text: 'Paid Bob 10.' });

    // Act
    const reply = await runtime.resume(
      golden.sessionId,
      golden.runId,
      [{ id: 'call_pay_1', status: 'approved' }],
      { principal: 'alice' },
    );

    // Assess
    expect(reply).toMatchObject({ status: 'completed', text: 'Paid Bob 10.' });
    expect(payments).toEqual([{ to: 'bob', amount: 10 }]);
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]?.body)).toContain('sent 10 to bob');
  });

  it('an expired paused run gives a clear error, is not resurrected, and no longer blocks the session', async () => {
    // Prepare
    const clock = { now: 1_800_000_000_000 };
    const { runtime, pausedRuns } = makeRuntime(clock);
    server.push({
      toolCalls: [{ id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 10 } }],
    });
    const paused = await runtime.run('payer', 's-exp', 'Pay Bob 10');
    clock.now += 60_001;

    // Act
    const late = runtime.resume('s-exp', paused.runId, [{ id: 'call_pay_1', status: 'approved' }]);

    // Assess
    await expect(late).rejects.toMatchObject({ code: 'paused-run-not-found' });
    expect(await pausedRuns.get('s-exp', paused.runId)).toBeUndefined();
    expect(await pausedRuns.list('s-exp')).toEqual([]);
    expect(payments).toEqual([]);
    server.push({ text: 'Hello again.' });
    await expect(runtime.run('payer', 's-exp', 'Hi')).resolves.toMatchObject({
      text: 'Hello again.',
    });
  });
});
