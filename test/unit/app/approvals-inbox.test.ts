import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeApprovalCursor,
  encodeApprovalCursor,
  listApprovals,
} from '../../../lib/app/approvals-inbox.js';
import { AccessPolicy } from '../../../lib/app/policy.js';
import { AgentKernelError } from '../../../lib/core/errors.js';
import type { PausedRun } from '../../../lib/core/paused-run.js';
import { newSession } from '../../../lib/core/session.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../../lib/stores/index.js';

// The inbox reader over in-memory stores: what it leaves out, and its cursor against any input.
const code = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return err instanceof AgentKernelError ? err.code : `unexpected ${String(err)}`;
  }
};

async function world() {
  const sessions = new InMemorySessionStore();
  const pausedRuns = new InMemoryPausedRunStore();
  const policy = new AccessPolicy(sessions, { approvers: new Set(['approver']) });
  const deps = { policy, sessions, pausedRuns, index: pausedRuns };
  let at = 1_000;
  const pause = async (
    sessionId: string,
    owner: string | undefined,
    patch: Partial<PausedRun> = {},
  ) => {
    const stored = await sessions.load(sessionId);
    const data = stored?.data ?? newSession(sessionId, at, owner, `life-${sessionId}`);
    if (!stored) await sessions.save(data, 0);
    const run: PausedRun = {
      schemaVersion: 1,
      runId: `run-${at}`,
      sessionId,
      owner: data.owner,
      incarnation: data.incarnation,
      agent: 'helper',
      runner: 'openai',
      createdAt: Date.now() + at++,
      expiresAt: Date.now() + 3_600_000,
      status: 'pending',
      interruptions: [{ id: 'c1', kind: 'tool-approval', toolName: 'refund', arguments: { a: 1 } }],
      state: { secret: 'framework state' },
      ...patch,
    };
    await pausedRuns.put(run);
    return run;
  };
  return { deps, sessions, pausedRuns, pause };
}

describe('listApprovals', () => {
  it('leaves out a run being resumed, one of an earlier life, and one without an owner', async () => {
    // Prepare
    const { deps, sessions, pausedRuns, pause } = await world();
    const kept = await pause('s-kept', 'alice');
    const claimed = await pause('s-claimed', 'alice');
    await pausedRuns.claim(claimed.sessionId, claimed.runId);
    // The session was cleared and its id taken again by bob: alice's run is of the old life.
    const old = await pause('s-reborn', 'alice');
    const reborn = await sessions.load('s-reborn');
    await sessions.save({ ...newSession('s-reborn', 5, 'bob', 'life-2') }, reborn?.version ?? 0);
    // A session stored without an owner (the Runtime used as a library): nobody's to decide.
    await pause('s-ownerless', undefined);

    // Act
    const approver = await listApprovals(deps, 'approver', {});
    const alice = await listApprovals(deps, 'alice', {});
    const bob = await listApprovals(deps, 'bob', {});

    // Assess
    expect(approver.approvals.map((a) => a.runId)).toEqual([kept.runId]);
    expect(approver.approvals[0]).not.toHaveProperty('state');
    expect(alice.approvals.map((a) => a.runId)).toEqual([kept.runId]);
    expect(bob.approvals).toEqual([]);
    expect(old.owner).toBe('alice');
  });

  it('refuses no principal; without an index the route is not here', async () => {
    // Prepare
    const { deps } = await world();

    // Act
    const anonymous = listApprovals(deps, undefined, {});
    const noIndex = listApprovals({ ...deps, index: undefined }, 'approver', {});

    // Assess
    await expect(anonymous).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(noIndex).rejects.toMatchObject({ code: 'not-found' });
  });
});

describe('approval cursors', () => {
  it('round-trips every position it gives out', () => {
    const id = fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/);
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 52 }), id, id, (createdAt, sessionId, runId) => {
        const position = { createdAt, sessionId, runId };
        expect(decodeApprovalCursor(encodeApprovalCursor(position))).toEqual(position);
      }),
    );
  });

  it('answers any other string with invalid-cursor, never another error', () => {
    const anything = fc.oneof(
      fc.string({ maxLength: 800 }),
      fc.json().map((j) => Buffer.from(j).toString('base64url')),
      fc
        .tuple(fc.anything(), fc.anything(), fc.anything())
        .map((t) => Buffer.from(JSON.stringify(t) ?? 'x').toString('base64url')),
    );
    fc.assert(
      fc.property(anything, (value) => {
        expect(['ok', 'invalid-cursor']).toContain(code(() => decodeApprovalCursor(value)));
      }),
    );
  });
});
