import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { createDynamoClient, DynamoQuotaStore } from '../../../lib/stores/dynamodb/index.js';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../../lib/testing/index.js';
import { http, WsUser } from './clients.js';

// Fair use per principal over the real local stack: the stack's limits (QUOTA_*, as the CDK
// context sets them) and per-principal overrides (the LIMITS item), for each quota one principal
// over its limit and another's runs passing. The model reports a fixed usage per call, so the
// metered tokens must equal it exactly; a run whose input says HOLD waits until released.
const USAGE = { inputTokens: 40, outputTokens: 2 };
const PER_RUN = USAGE.inputTokens + USAGE.outputTokens;

let stack: LocalStack;
let model: ScriptedModelServer;
let quotas: DynamoQuotaStore;
let release: () => void = () => {};
let held = new Promise<void>((resolve) => {
  release = resolve;
});
const users: WsUser[] = [];

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  for (const key of ['TABLE_NAME', 'DYNAMODB_ENDPOINT']) delete process.env[key];
  model = await startScriptedModelServer({
    fallback: async (request: RecordedRequest) => {
      if (JSON.stringify(request.body?.input ?? '').includes('HOLD')) await held;
      return { text: 'fine', usage: USAGE };
    },
  });
  Object.assign(process.env, {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'offline',
    QUOTAS: 'on',
    QUOTA_CONNECTIONS: '3',
    QUOTA_RUNS_IN_FLIGHT: '2',
  });
  stack = await startLocalStack();
  const client = createDynamoClient({ endpoint: process.env.DYNAMODB_ENDPOINT as string });
  quotas = new DynamoQuotaStore({ client, tableName: process.env.TABLE_NAME as string });
}, 60_000);

afterAll(async () => {
  release();
  for (const user of users) user.close();
  await stack?.stop();
  await model?.close();
  for (const key of ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'QUOTA_CONNECTIONS']) {
    delete process.env[key];
  }
  delete process.env.QUOTA_RUNS_IN_FLIGHT;
});

async function user(principal: string): Promise<WsUser> {
  const client = await WsUser.connect(stack, principal);
  users.push(client);
  return client;
}

/** A handshake's outcome: open, or the refused upgrade's status, headers and body. */
function handshake(principal: string, token: string) {
  const ws = new WebSocket(`${stack.wsUrl}?token=${token}`);
  return new Promise<
    { open: WebSocket } | { status: number; headers: Record<string, unknown>; body: any }
  >((resolve, reject) => {
    ws.once('open', () => resolve({ open: ws }));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
      );
    });
    ws.once('error', (err) => reject(new Error(`${principal}: ${err.message}`)));
  });
}

const run = (requestId: string, input = 'hello') => ({
  action: 'run',
  requestId,
  agent: 'demo',
  sessionId: `s-${requestId}`,
  input,
});

/** Runs a turn over the WebSocket to its end; answers the terminal event. */
async function wsTurn(client: WsUser, requestId: string) {
  client.send(run(requestId));
  const accepted = await client.answer(requestId);
  expect(accepted.type).toBe('accepted');
  const end = await client.terminal(accepted.runId);
  return end.events.at(-1);
}

const syncRun = (principal: string, id: string) =>
  http(stack, principal, 'POST', '/runs', { agent: 'demo', sessionId: `s-${id}`, input: 'hi' });

/** Waits while fewer than `seconds` are left of this UTC minute (per-minute counts stay in one). */
async function withinOneMinute(seconds: number): Promise<void> {
  const left = 60 - new Date().getUTCSeconds();
  if (left < seconds) await new Promise((r) => setTimeout(r, left * 1000 + 200));
}

describe('fair use per principal over the local stack', () => {
  it('connections: the fourth socket of one principal is refused (429); another connects', async () => {
    // Prepare
    const token = await stack.tokenFor('conn-a');
    const opened = [];
    for (let i = 0; i < 3; i++) opened.push(await handshake('conn-a', token));

    // Act
    const fourth = await handshake('conn-a', token);
    const other = await handshake('conn-b', await stack.tokenFor('conn-b'));
    const first = opened[0] as { open: WebSocket };
    const closed = new Promise((resolve) => first.open.once('close', resolve));
    first.open.close();
    await closed;
    let again = await handshake('conn-a', token);
    // $disconnect runs after the close: the lease goes once it has.
    for (let i = 0; i < 50 && !('open' in again); i++) {
      await new Promise((r) => setTimeout(r, 100));
      again = await handshake('conn-a', token);
    }

    // Assess
    expect(opened.every((o) => 'open' in o)).toBe(true);
    expect(fourth).toMatchObject({
      status: 429,
      headers: { 'retry-after': '5' },
      body: { type: 'error', code: 'quota-exceeded', retryAfter: 5 },
    });
    expect('open' in other).toBe(true);
    expect('open' in again).toBe(true);
    for (const o of [...opened, other, again]) if ('open' in o) o.open.close();
  });

  it('runs in flight: a third run while two are held is refused; another principal runs', async () => {
    // Prepare
    const alice = await user('busy-a');
    alice.send(run('busy-1', 'HOLD 1'));
    alice.send(run('busy-2', 'HOLD 2'));
    const accepted = [await alice.answer('busy-1'), await alice.answer('busy-2')];

    // Act
    alice.send(run('busy-3'));
    const refused = await alice.answer('busy-3');
    // Over HTTP: the local worker takes queued jobs one at a time, behind alice's held ones.
    const bobs = await syncRun('busy-b', 'busy-b1');
    release();
    const ends = await Promise.all(accepted.map((a) => alice.terminal(a.runId)));
    const after = await wsTurn(alice, 'busy-4');

    // Assess
    expect(accepted.map((a) => a.type)).toEqual(['accepted', 'accepted']);
    expect(refused).toMatchObject({
      type: 'error',
      requestId: 'busy-3',
      code: 'quota-exceeded',
      retryAfter: 2,
    });
    expect(refused.message).toMatch(/runsInFlight/);
    expect(bobs).toMatchObject({ status: 200, body: { status: 'completed' } });
    expect(ends.map((m) => m.events.at(-1).type)).toEqual(['run-finished', 'run-finished']);
    expect(after.type).toBe('run-finished');
    // The refused request left nothing behind: no session, no run record.
    expect((await http(stack, 'busy-a', 'GET', '/sessions/s-busy-3')).status).toBe(404);
  });

  it('race: of 8 concurrent async runs of one principal against 2 in flight, exactly 2 pass', async () => {
    // Prepare
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const post = (i: number) =>
      http(stack, 'race-a', 'POST', '/runs', {
        agent: 'demo',
        sessionId: `s-race-${i}`,
        input: `HOLD ${i}`,
        mode: 'async',
      });

    // Act
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(i)));
    const other = await syncRun('race-b', 'race-b1');
    const during = await http(stack, 'race-a', 'GET', '/usage');
    release();

    // Assess
    expect(answers.filter((a) => a.status === 202)).toHaveLength(2);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(6);
    for (const r of refused) expect(r.body).toMatchObject({ code: 'quota-exceeded' });
    expect(other.status).toBe(200);
    expect(during.body).toMatchObject({ principal: 'race-a', runsInFlight: 2 });
  });

  it('runs per minute (override): the third sync run in a minute is a 429 with Retry-After', async () => {
    // Prepare
    await quotas.setOverride('rpm-a', { runsPerMinute: 2 });
    await withinOneMinute(20);

    // Act
    const results = [
      await syncRun('rpm-a', 'rpm-1'),
      await syncRun('rpm-a', 'rpm-2'),
      await syncRun('rpm-a', 'rpm-3'),
    ];
    const retry = await fetch(`${stack.httpUrl}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await stack.tokenFor('rpm-a')}` },
      body: JSON.stringify({ agent: 'demo', sessionId: 's-rpm-4', input: 'hi' }),
    });
    const others = [await syncRun('rpm-b', 'rpm-b1'), await syncRun('rpm-b', 'rpm-b2')];
    const others3 = await syncRun('rpm-b', 'rpm-b3');

    // Assess
    expect(results.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(results[2]?.body).toMatchObject({ code: 'quota-exceeded' });
    expect(results[2]?.body.message).toMatch(/runsPerMinute/);
    const after = Number(retry.headers.get('retry-after'));
    expect(retry.status).toBe(429);
    expect(after).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(60);
    expect(((await retry.json()) as { retryAfter: number }).retryAfter).toBe(after);
    expect([...others, others3].map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('tokens per day (override): metered exactly as the model reported; spent, refused', async () => {
    // Prepare
    await quotas.setOverride('tok-a', { tokensPerDay: 3 * PER_RUN - 1 });
    const alice = await user('tok-a');
    const bob = await user('tok-b');
    for (const id of ['tok-1', 'tok-2', 'tok-3']) await wsTurn(alice, id);

    // Act
    const usage = await http(stack, 'tok-a', 'GET', '/usage');
    alice.send(run('tok-4'));
    const refused = await alice.answer('tok-4');
    const sync = await syncRun('tok-a', 'tok-5');
    const bobs = await wsTurn(bob, 'tok-b1');
    const bobUsage = await http(stack, 'tok-b', 'GET', '/usage');

    // Assess
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({
      principal: 'tok-a',
      limits: { tokensPerDay: 3 * PER_RUN - 1, runsInFlight: 2, connections: 3 },
      runsInFlight: 0,
      tokensToday: 3 * PER_RUN,
    });
    expect(usage.body.days[0]).toEqual({
      day: new Date().toISOString().slice(0, 10),
      inputTokens: 3 * USAGE.inputTokens,
      outputTokens: 3 * USAGE.outputTokens,
      runs: 3,
    });
    expect(refused).toMatchObject({ type: 'error', code: 'quota-exceeded' });
    expect(refused.message).toMatch(/tokensPerDay/);
    expect(refused.retryAfter).toBeGreaterThan(0);
    expect(sync.status).toBe(429);
    expect(bobs.type).toBe('run-finished');
    // Each principal reads only its own usage: bob's shows his one run, none of alice's.
    expect(bobUsage.body).toMatchObject({ principal: 'tok-b', tokensToday: PER_RUN });
  });

  it('GET /usage needs a token; a sync run is metered as the model reported too', async () => {
    // Prepare
    await syncRun('meter-a', 'meter-1');

    // Act
    const anonymous = await fetch(`${stack.httpUrl}/usage`);
    const usage = await http(stack, 'meter-a', 'GET', '/usage');

    // Assess
    expect(anonymous.status).toBe(401);
    expect(usage.body).toMatchObject({ tokensToday: PER_RUN, runsInFlight: 0 });
    expect(usage.body.days[0]).toMatchObject({ ...USAGE, runs: 1 });
  });

  it('the Function URL applies the same quotas: refused before any event, as JSON 429', async () => {
    // Prepare
    await quotas.setOverride('stream-a', { runsInFlight: 0 });
    const stream = async (principal: string) =>
      fetch(`${stack.streamUrl}/runs`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await stack.tokenFor(principal)}`,
          accept: 'text/event-stream',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ agent: 'demo', input: 'hi' }),
      });

    // Act
    const refused = await stream('stream-a');
    const passed = await stream('stream-b');
    const text = await passed.text();

    // Assess
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await refused.json()).toMatchObject({ code: 'quota-exceeded', retryAfter: 2 });
    expect(passed.status).toBe(200);
    expect(text).toContain('run-finished');
  });
});
