import { describe, expect, it } from 'vitest';
import { FrontDoor } from '../../../lib/app/front-door.js';
import { makeIdempotent } from '../../../lib/app/idempotent.js';
import type { JobQueue } from '../../../lib/app/ports.js';
import { newSession } from '../../../lib/core/session.js';
import { InMemoryConnectionStore } from '../../../lib/stores/memory/connection-store.js';
import { InMemoryIdempotencyStore } from '../../../lib/stores/memory/idempotency-store.js';
import { InMemoryPausedRunStore } from '../../../lib/stores/memory/paused-run-store.js';
import { InMemoryRunRecordStore } from '../../../lib/stores/memory/run-record-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import type { RunJob } from '../../../lib/transport/protocol.js';

/** The front door over in-memory stores and a queue that keeps what it is sent. */
function door(options: { approvers?: string[] } = {}) {
  const jobs: RunJob[] = [];
  const queue: JobQueue = { send: async (job) => void jobs.push(job) };
  const sessions = new InMemorySessionStore();
  const runs = new InMemoryRunRecordStore();
  const connections = new InMemoryConnectionStore();
  const front = new FrontDoor({
    sessions,
    pausedRuns: new InMemoryPausedRunStore(),
    runs,
    connections,
    idempotency: new InMemoryIdempotencyStore(),
    agents: { has: (name) => name === 'demo', cards: () => [{ name: 'demo' }] },
    queue,
    ...(options.approvers ? { approvers: new Set(options.approvers) } : {}),
  });
  return { front, jobs, sessions, runs, connections };
}

const run = (principal: unknown, extra: Record<string, unknown> = {}) => ({
  principal,
  requestId: 'r1',
  agent: 'demo',
  sessionId: 's1',
  input: 'hi',
  ...extra,
});

describe('FrontDoor', () => {
  it('of many principals racing to claim one session, exactly one owns it', async () => {
    // Prepare
    const { front, jobs, sessions } = door();
    const principals = Array.from({ length: 20 }, (_, i) => `user-${i}`);

    // Act
    const results = await Promise.allSettled(principals.map((p) => front.submitRun(run(p))));

    // Assess
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [principals[i]] : []));
    expect(won).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason.code).toBe('not-found');
    }
    expect((await sessions.load('s1'))?.data.owner).toBe(won[0]);
    expect(jobs.map((j) => j.principal)).toEqual(won);
  });

  it.each([
    ['no principal', undefined],
    ['an empty principal', ''],
    ['a principal over 1,024 characters', 'p'.repeat(1025)],
    ['a principal with a control character', 'a\u0000b'],
  ])('refuses %s whatever the gateway did, and changes nothing', async (_label, principal) => {
    // Prepare
    const { front, jobs, sessions, runs } = door();

    // Act
    const refused = front.submitRun(run(principal));

    // Assess
    await expect(refused).rejects.toMatchObject({ code: 'unauthorized' });
    expect(await sessions.load('s1')).toBeUndefined();
    expect(jobs).toEqual([]);
    expect(await runs.get('s1', 'r1')).toBeUndefined();
  });

  it('refuses an unknown agent or a bad id before claiming the session', async () => {
    // Prepare
    const { front, jobs, sessions } = door();

    // Act + Assess
    await expect(front.submitRun(run('alice', { agent: 'nobody' }))).rejects.toMatchObject({
      code: 'agent-not-found',
    });
    await expect(
      front.submitRun(run('alice', { sessionId: 'x'.repeat(3000) })),
    ).rejects.toMatchObject({
      code: 'invalid-request',
    });
    expect(await sessions.load('s1')).toBeUndefined();
    expect(jobs).toEqual([]);
  });

  it('treats a session without an owner as nobody’s: not-found for every principal', async () => {
    // Prepare: a session stored before owners were fixed on accept.
    const { front, sessions } = door({ approvers: ['back-office'] });
    await sessions.save(newSession('legacy', Date.now()), 0);

    // Act + Assess
    for (const principal of ['alice', 'back-office']) {
      await expect(front.readSession(principal, 'legacy')).rejects.toMatchObject({
        code: 'not-found',
      });
      await expect(front.submitRun(run(principal, { sessionId: 'legacy' }))).rejects.toMatchObject({
        code: 'not-found',
      });
    }
  });

  it('lets a configured approver decide only through the approvals channel, acting as the owner', async () => {
    // Prepare
    const { front } = door({ approvers: ['back-office'] });
    await front.submitRun(run('alice'));

    // Act
    const decider = await front.policy.decider('back-office', 's1');
    const viaWebSocket = front.submitResume({
      principal: 'back-office',
      requestId: 'd1',
      sessionId: 's1',
      runId: 'run-1',
      decisions: [{ id: 'c', status: 'approved' }],
    });

    // Assess
    expect(decider.owner).toBe('alice');
    await expect(viaWebSocket).rejects.toMatchObject({ code: 'not-found' });
    await expect(front.policy.decider('mallory', 's1')).rejects.toMatchObject({
      code: 'not-found',
    });
  });

  it('answers a retried request with the first accepted, and refuses another payload', async () => {
    // Prepare
    const { front, jobs } = door();
    const first = await front.submitRun(run('alice'));

    // Act
    const again = await front.submitRun(run('alice'));
    const conflict = front.submitRun(run('alice', { input: 'other' }));

    // Assess
    expect(again).toEqual(first);
    await expect(conflict).rejects.toMatchObject({ code: 'request-conflict' });
    expect(jobs).toHaveLength(1);
  });
});

describe('makeIdempotent', () => {
  const options = {
    key: (args: { id?: string; body: string }) => (args.id ? ['p', args.id] : undefined),
    payload: (args: { body: string }) => args.body,
    describe: (args: { id?: string }) => `Request "${args.id}"`,
  };

  it('runs once per key, refuses another payload, and runs again after a failure', async () => {
    // Prepare
    const store = new InMemoryIdempotencyStore();
    let calls = 0;
    let fail = true;
    const fn = makeIdempotent(
      store,
      async (args: { id?: string; body: string }) => {
        calls += 1;
        if (fail) {
          fail = false;
          throw new Error('boom');
        }
        return `done ${args.body}`;
      },
      options,
    );

    // Act
    const failed = fn({ id: 'k', body: 'a' });
    await expect(failed).rejects.toThrow('boom');
    const first = await fn({ id: 'k', body: 'a' });
    const second = await fn({ id: 'k', body: 'a' });
    const conflict = fn({ id: 'k', body: 'b' });
    const unkeyed = await fn({ body: 'c' });

    // Assess
    expect([first, second, unkeyed]).toEqual(['done a', 'done a', 'done c']);
    await expect(conflict).rejects.toMatchObject({ code: 'request-conflict' });
    expect(calls).toBe(3);
  });

  it('answers request-in-progress while the first call still runs', async () => {
    // Prepare
    const store = new InMemoryIdempotencyStore();
    let release: () => void = () => undefined;
    const fn = makeIdempotent(
      store,
      () => new Promise<string>((resolve) => (release = () => resolve('ok'))),
      options,
    );

    // Act
    const first = fn({ id: 'k', body: 'a' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const second = fn({ id: 'k', body: 'a' });

    // Assess
    await expect(second).rejects.toMatchObject({ code: 'request-in-progress' });
    release();
    expect(await first).toBe('ok');
  });
});
