import { describe, expect, it } from 'vitest';
import { FrontDoor } from '../../../lib/app/front-door.js';
import { processIdKey, ServerIds } from '../../../lib/app/ids.js';
import type { JobQueue } from '../../../lib/app/ports.js';
import { PAUSED_RUN_SCHEMA_VERSION, type PausedRun } from '../../../lib/core/paused-run.js';
import { InMemoryIdempotencyStore } from '../../../lib/stores/memory/idempotency-store.js';
import { InMemoryPausedRunStore } from '../../../lib/stores/memory/paused-run-store.js';
import { InMemoryRunRecordStore } from '../../../lib/stores/memory/run-record-store.js';
import { InMemorySessionStore } from '../../../lib/stores/memory/session-store.js';
import type { RunJob } from '../../../lib/transport/protocol.js';

// What a session keeps outlives its head when a clear's deletes fail or the head expires first:
// here the head is deleted by hand and the rest left in place, the worst case the binding covers.
function door(idKey = processIdKey()) {
  const jobs: RunJob[] = [];
  const queue: JobQueue = { send: async (job) => void jobs.push(job) };
  const sessions = new InMemorySessionStore();
  const runs = new InMemoryRunRecordStore();
  const pausedRuns = new InMemoryPausedRunStore();
  const front = new FrontDoor({
    sessions,
    pausedRuns,
    runs,
    idempotency: new InMemoryIdempotencyStore(),
    agents: { has: (name) => name === 'demo', cards: () => [] },
    queue,
    approvers: new Set(['back-office']),
    idKey,
  });
  return { front, jobs, sessions, runs, pausedRuns };
}

const run = (principal: string, requestId: string, sessionId?: string) => ({
  principal,
  requestId,
  agent: 'demo',
  input: 'hi',
  ...(sessionId ? { sessionId } : {}),
});

function pausedOf(sessionId: string, runId: string, binding: Partial<PausedRun>): PausedRun {
  const now = Date.now();
  return {
    schemaVersion: PAUSED_RUN_SCHEMA_VERSION,
    runId,
    sessionId,
    ...binding,
    agent: 'demo',
    runner: 'fake',
    createdAt: now,
    expiresAt: now + 60_000,
    status: 'pending',
    interruptions: [
      { id: 'call-1', kind: 'tool-approval', toolName: 'pay', arguments: { to: 'x' } },
    ],
    state: {},
  } as PausedRun;
}

describe('ownership over time', () => {
  it('after the head is gone, the next claimant reaches no record or paused run of the former life', async () => {
    // Prepare: alice's run and a paused run, then her head disappears (a clear, an expiry).
    const { front, sessions, runs, pausedRuns } = door();
    const accepted = await front.submitRun(run('alice', 'r1', 'R'));
    const alice = (await sessions.load('R'))?.data;
    await pausedRuns.put(
      pausedOf('R', accepted.runId, { owner: 'alice', incarnation: alice?.incarnation }),
    );
    await sessions.delete('R');

    // Act: bob claims the id, then asks for everything of alice's.
    await front.submitRun(run('bob', 'b1', 'R'));
    const decisions = [{ id: 'call-1', status: 'approved' as const }];
    const resume = { sessionId: 'R', runId: accepted.runId, decisions };
    const tries = [
      front.readRun('bob', 'R', accepted.runId),
      front.submitResume({ principal: 'bob', requestId: 'b2', ...resume }),
      front.submitResume({ principal: 'back-office', channel: 'approvals', ...resume }),
      front.readRun('alice', 'R', accepted.runId),
    ];

    // Assess: still stored, reachable by nobody.
    expect(await runs.get('R', accepted.runId)).toMatchObject({ owner: 'alice' });
    expect(await pausedRuns.get('R', accepted.runId)).toBeDefined();
    const answers = await Promise.allSettled(tries);
    expect(answers.map((a) => a.status === 'rejected' && a.reason.code)).toEqual([
      'not-found',
      'paused-run-not-found',
      'paused-run-not-found',
      'not-found',
    ]);
    expect((await sessions.load('R'))?.data.incarnation).not.toBe(alice?.incarnation);
  });

  it('the former owner reclaiming the id gets a new life too: her old records stay unreachable', async () => {
    // Prepare
    const { front, sessions } = door();
    const first = await front.submitRun(run('alice', 'r1', 'R'));
    await sessions.delete('R');

    // Act: the same requestId past the idempotency entry (another key: r1 is replayed), a new life.
    const second = await front.submitRun(run('alice', 'r2', 'R'));
    const replayed = await front.submitRun(run('alice', 'r1', 'R'));

    // Assess: her replay is her own stored answer; its record is of the old life.
    expect(second.runId).not.toBe(first.runId);
    expect(replayed).toEqual(first);
    await expect(front.readRun('alice', 'R', first.runId)).rejects.toMatchObject({
      code: 'not-found',
    });
    await expect(front.readRun('alice', 'R', second.runId)).resolves.toMatchObject({
      runId: second.runId,
    });
  });

  it('an approver decides a paused run of the current life only', async () => {
    // Prepare
    const { front, sessions, pausedRuns } = door();
    await front.submitRun(run('alice', 'r1', 'R'));
    const life = (await sessions.load('R'))?.data;
    await pausedRuns.put(pausedOf('R', 'now', { owner: 'alice', incarnation: life?.incarnation }));
    await pausedRuns.put(pausedOf('R', 'before', { owner: 'alice', incarnation: 'an-old-life' }));
    const decide = (runId: string) =>
      front.submitResume({
        principal: 'back-office',
        channel: 'approvals',
        sessionId: 'R',
        runId,
        decisions: [{ id: 'call-1', status: 'approved' }],
      });

    // Act + Assess
    await expect(decide('now')).resolves.toMatchObject({ runId: 'now' });
    await expect(decide('before')).rejects.toMatchObject({ code: 'paused-run-not-found' });
  });

  it('server-made ids come from the deployment key: the same request lands on the same ids, nobody else can compute them', async () => {
    // Prepare
    const key = processIdKey();
    const [one, same, other] = [
      new ServerIds(key),
      new ServerIds(key),
      new ServerIds(processIdKey()),
    ];

    // Act
    const ids = await Promise.all(
      [one, same, other].map(async (ids) => [
        await ids.sessionId('alice', 'q1'),
        await ids.runId('alice', 'R', 'life-1', 'q1'),
      ]),
    );
    const nextLife = await one.runId('alice', 'R', 'life-2', 'q1');

    // Assess
    expect(ids[1]).toEqual(ids[0]);
    expect(ids[2]?.[0]).not.toBe(ids[0]?.[0]);
    expect(ids[2]?.[1]).not.toBe(ids[0]?.[1]);
    expect(nextLife).not.toBe(ids[0]?.[1]);
    expect(ids[0]?.[0]).toMatch(/^s-[0-9a-f]{32}$/);
    expect(ids[0]?.[1]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('a squatter who took an id first gets an empty session and nothing of the victim', async () => {
    // Prepare: bob guesses alice's chosen id and runs there first.
    const { front, jobs } = door();
    await front.submitRun(run('bob', 'b1', 'chat-1'));

    // Act: alice names it, and alice lets the server make one.
    const named = front.submitRun(run('alice', 'a1', 'chat-1'));
    const made = await front.submitRun(run('alice', 'a2'));

    // Assess: refused as for any other's session; her server-made session is hers.
    await expect(named).rejects.toMatchObject({ code: 'not-found' });
    expect(made.sessionId).toMatch(/^s-/);
    expect(jobs.map((j) => [j.principal, j.sessionId])).toEqual([
      ['bob', 'chat-1'],
      ['alice', made.sessionId],
    ]);
  });
});
