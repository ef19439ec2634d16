import { describe, expect, it } from 'vitest';
import { FairUse, leaseIdOf, QuotaExceeded, UsageTally } from '../../../lib/app/fair-use.js';
import { FrontDoor } from '../../../lib/app/front-door.js';
import type { QuotaLimits } from '../../../lib/app/ports/quotas.js';
import type { JobQueue, TurnRunner } from '../../../lib/app/ports.js';
import { errorBody, errorResponse } from '../../../lib/aws/middleware/http-errors.js';
import { InMemoryIdempotencyStore } from '../../../lib/stores/memory/idempotency-store.js';
import { InMemoryPausedRunStore } from '../../../lib/stores/memory/paused-run-store.js';
import { InMemoryQuotaStore } from '../../../lib/stores/memory/quota-store.js';
import { InMemoryRunRecordStore } from '../../../lib/stores/memory/run-record-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import type { RunJob } from '../../../lib/transport/protocol.js';

const USAGE = { inputTokens: 30, outputTokens: 12 };

/** The front door with fair use over in-memory stores; turns answer with USAGE. */
function door(limits: QuotaLimits, options: { failQueue?: boolean } = {}) {
  const jobs: RunJob[] = [];
  const metrics: [string, number, Record<string, string>][] = [];
  const queue: JobQueue = {
    send: async (job) => {
      if (options.failQueue) throw new Error('queue down');
      jobs.push(job);
    },
  };
  const turns: TurnRunner = {
    run: async (agent, sessionId, _input, { runId }) => ({
      status: 'completed',
      runId,
      sessionId,
      agent,
      text: 'ok',
      usage: USAGE,
    }),
    resume: async () => {
      throw new Error('unused');
    },
    clearSession: async (sessionId) => ({ sessionId, cleared: true }),
  };
  const store = new InMemoryQuotaStore();
  const sessions = new InMemorySessionStore();
  const fairUse = new FairUse(store, {
    limits,
    queuedLeaseMs: 60_000,
    connectionLeaseMs: 60_000,
    metric: (name, value, fields) => metrics.push([name, value, fields]),
  });
  const front = new FrontDoor({
    sessions,
    pausedRuns: new InMemoryPausedRunStore(),
    runs: new InMemoryRunRecordStore(),
    idempotency: new InMemoryIdempotencyStore(),
    agents: { has: (name) => name === 'demo', cards: () => [] },
    queue,
    turns,
    fairUse,
  });
  return { front, jobs, store, sessions, fairUse, metrics };
}

const run = (principal: string, requestId: string) => ({
  principal,
  requestId,
  agent: 'demo',
  sessionId: `s-${principal}-${requestId}`,
  input: 'hi',
});

describe('fair use in the front door', () => {
  it('refuses a queued run over the limit with QuotaExceeded; nothing is claimed or queued', async () => {
    // Prepare
    const { front, jobs, sessions, metrics } = door({ runsInFlight: 1 });
    await front.submitRun(run('alice', 'r1'));

    // Act
    const refused = await front.submitRun(run('alice', 'r2')).catch((err) => err);
    const bob = await front.submitRun(run('bob', 'r1'));

    // Assess
    expect(refused).toBeInstanceOf(QuotaExceeded);
    expect(refused).toMatchObject({ code: 'quota-exceeded', quota: 'runsInFlight', retryAfter: 2 });
    expect(await sessions.load('s-alice-r2')).toBeUndefined();
    expect(jobs.map((j) => j.requestId)).toEqual(['r1', 'r1']);
    expect(bob.sessionId).toBe('s-bob-r1');
    expect(metrics).toContainEqual([
      'QuotaRefusals',
      1,
      { quota: 'runsInFlight', principal: 'alice' },
    ]);
  });

  it('a retried request id is answered again without counting twice', async () => {
    // Prepare
    const { front, store } = door({ runsInFlight: 1 });
    const first = await front.submitRun(run('alice', 'r1'));

    // Act
    const again = await front.submitRun(run('alice', 'r1'));

    // Assess
    expect(again).toEqual(first);
    expect((await store.usage('alice')).runsInFlight).toBe(1);
  });

  it('a queued run that could not be queued gives its lease back', async () => {
    // Prepare
    const { front, store } = door({ runsInFlight: 1 }, { failQueue: true });

    // Act
    const failed = await front.submitRun(run('alice', 'r1')).catch((err) => err);

    // Assess
    expect(String(failed)).toMatch(/queue down/);
    expect((await store.usage('alice')).runsInFlight).toBe(0);
  });

  it('the worker’s end releases the queued run’s lease and adds its tokens', async () => {
    // Prepare
    const { front, fairUse, store, metrics } = door({ runsInFlight: 1 });
    const accepted = await front.submitRun(run('alice', 'r1'));

    // Act
    const lease = leaseIdOf(accepted.runId, accepted.requestId);
    await fairUse.ended('alice', lease, USAGE, { release: true });
    const next = await front.submitRun(run('alice', 'r2'));

    // Assess
    expect(next.requestId).toBe('r2');
    expect((await store.usage('alice')).tokensToday).toBe(42);
    expect(metrics).toContainEqual(['ModelTokens', 42, { principal: 'alice' }]);
  });

  it('a sync run is admitted, metered from its reply and released', async () => {
    // Prepare
    const { front, store } = door({ runsInFlight: 1, tokensPerDay: 80 });

    // Act
    await front.runNow(run('alice', 'r1'));
    await front.runNow(run('alice', 'r2'));
    const spent = await front.runNow(run('alice', 'r3')).catch((err) => err);
    const usage = await front.usage('alice');

    // Assess
    expect(spent).toMatchObject({ code: 'quota-exceeded', quota: 'tokensPerDay' });
    expect(usage).toMatchObject({ principal: 'alice', runsInFlight: 0, tokensToday: 84 });
    expect(usage.limits).toEqual({ runsInFlight: 1, tokensPerDay: 80 });
    expect((await store.usage('bob')).tokensToday).toBe(0);
  });

  it("an override replaces the stack's limit for that principal only", async () => {
    // Prepare
    const { front, store } = door({ runsInFlight: 1 });
    await store.setOverride('vip', { runsInFlight: 3 });

    // Act
    const vip = await Promise.allSettled(
      ['a', 'b', 'c', 'd'].map((id) => front.submitRun(run('vip', id))),
    );
    const plain = await Promise.allSettled(['a', 'b'].map((id) => front.submitRun(run('joe', id))));

    // Assess
    expect(vip.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(plain.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('reads a changed override again within 60 s, not on every request', async () => {
    // Prepare
    let clock = 1_000_000;
    const store = new InMemoryQuotaStore({ now: () => clock });
    const fairUse = new FairUse(store, {
      limits: { runsInFlight: 1 },
      queuedLeaseMs: 600_000,
      connectionLeaseMs: 600_000,
      now: () => clock,
    });
    await fairUse.limitsOf('alice');

    // Act
    await store.setOverride('alice', { runsInFlight: 5 });
    const cached = await fairUse.limitsOf('alice');
    clock += 60_001;
    const fresh = await fairUse.limitsOf('alice');

    // Assess
    expect(cached.runsInFlight).toBe(1);
    expect(fresh.runsInFlight).toBe(5);
  });

  it('GET /usage without fair use is not-found; without a principal unauthorized', async () => {
    // Prepare
    const { front } = door({});
    const off = new FrontDoor({
      sessions: new InMemorySessionStore(),
      pausedRuns: new InMemoryPausedRunStore(),
      runs: new InMemoryRunRecordStore(),
      agents: { has: () => true, cards: () => [] },
    });

    // Act
    const anonymous = await front.usage(undefined).catch((err) => err);
    const none = await off.usage('alice').catch((err) => err);

    // Assess
    expect(anonymous).toMatchObject({ code: 'unauthorized' });
    expect(none).toMatchObject({ code: 'not-found' });
  });

  it('is a 429 with Retry-After and the body’s retryAfter over HTTP', () => {
    // Act
    const response = errorResponse(errorBody(new QuotaExceeded('runsPerMinute', 5, 17)));

    // Assess
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('17');
    expect(JSON.parse(response.body)).toMatchObject({ code: 'quota-exceeded', retryAfter: 17 });
  });
});

describe('UsageTally', () => {
  it('sums the steps’ usage (a paused turn too), else takes the reply’s', () => {
    // Prepare
    const steps = new UsageTally();
    const replyOnly = new UsageTally();
    const reply = {
      status: 'completed' as const,
      runId: 'r',
      sessionId: 's',
      agent: 'a',
      text: '',
      usage: { inputTokens: 99, outputTokens: 1 },
    };

    // Act
    steps.observe({
      type: 'step-end',
      runId: 'r',
      stepId: '1',
      usage: { inputTokens: 5, outputTokens: 1 },
    });
    steps.observe({
      type: 'step-end',
      runId: 'r',
      stepId: '2',
      usage: { inputTokens: 7, outputTokens: 2 },
    });
    steps.observe({
      type: 'run-finished',
      runId: 'r',
      reply: { ...reply, usage: { inputTokens: 12, outputTokens: 3 } },
    });
    replyOnly.observe({ type: 'step-end', runId: 'r', stepId: '1' });
    replyOnly.observe({ type: 'run-finished', runId: 'r', reply });

    // Assess
    expect(steps.total).toEqual({ inputTokens: 12, outputTokens: 3 });
    expect(replyOnly.total).toEqual({ inputTokens: 99, outputTokens: 1 });
    expect(new UsageTally().total).toEqual({ inputTokens: 0, outputTokens: 0 });
  });
});
