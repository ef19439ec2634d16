import { describe, expect, it } from 'vitest';
import {
  Agent,
  type Runner,
  type RunnerInput,
  type RunnerResumeInput,
  type RunnerStream,
  Runtime,
} from '../../../lib/core/index.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../../lib/stores/index.js';

/** Pauses every new turn on one approval; a resume completes and counts itself. */
class ApprovalRunner implements Runner<unknown> {
  readonly name = 'approval';
  readonly supportsStreaming = true;
  readonly supportsPause = true;
  readonly reservedRunOptions = {};
  resumes = 0;

  // biome-ignore lint/correctness/useYield: a runner that pauses before any event
  async *stream(input: RunnerInput): RunnerStream {
    return {
      status: 'paused',
      interruptions: [{ id: 'call-1', kind: 'tool-approval', toolName: 'refund' }],
      pausedState: { pending: 'call-1' },
      context: input.context,
    };
  }

  // biome-ignore lint/correctness/useYield: a resume with no events of its own
  async *resumeStream(input: RunnerResumeInput): RunnerStream {
    this.resumes += 1;
    return { status: 'completed', text: 'refunded', state: {}, context: input.context };
  }
}

function setup() {
  const runner = new ApprovalRunner();
  const sessions = new InMemorySessionStore();
  const pausedRuns = new InMemoryPausedRunStore();
  const runtime = new Runtime({
    sessions,
    pausedRuns,
    agents: [new Agent({ name: 'refunds', native: {}, runner })],
  });
  return { runner, sessions, pausedRuns, runtime };
}

const approve = [{ id: 'call-1', status: 'approved' as const }];

describe('a paused run belongs to one life of its session', () => {
  it('is stamped with the session’s owner and incarnation', async () => {
    // Prepare
    const { sessions, pausedRuns, runtime } = setup();

    // Act
    await runtime.run('refunds', 's1', 'refund', { runId: 'r1', principal: 'alice' });

    // Assess
    const session = (await sessions.load('s1'))?.data;
    expect(session?.incarnation).toEqual(expect.any(String));
    expect(await pausedRuns.get('s1', 'r1')).toMatchObject({
      owner: 'alice',
      incarnation: session?.incarnation,
    });
  });

  it('is not found once the head is gone and the id lives again, even for its owner', async () => {
    // Prepare: the head disappears (expired, or a clear whose paused-run delete failed).
    const { runner, sessions, pausedRuns, runtime } = setup();
    await runtime.run('refunds', 's1', 'refund', { runId: 'r1', principal: 'alice' });
    await sessions.delete('s1');

    // Act: nobody's session, then alice's new one, then bob's.
    const absent = runtime.resume('s1', 'r1', approve, { principal: 'alice' });
    await expect(absent).rejects.toMatchObject({ code: 'paused-run-not-found' });
    await runtime.run('refunds', 's1', 'again', { runId: 'r2', principal: 'alice' });
    const hers = runtime.resume('s1', 'r1', approve, { principal: 'alice' });
    await expect(hers).rejects.toMatchObject({ code: 'paused-run-not-found' });

    // Assess: the decisions never reached the runner; the old run is untouched.
    expect(runner.resumes).toBe(0);
    expect(await pausedRuns.get('s1', 'r1')).toMatchObject({ status: 'pending' });
    await expect(
      runtime.resume('s1', 'r2', approve, { principal: 'alice' }),
    ).resolves.toMatchObject({ status: 'completed' });
  });

  it('a turn that creates the session gives it the incarnation the caller chose', async () => {
    // Prepare
    const { sessions, runtime } = setup();

    // Act
    await runtime.run('refunds', 's2', 'refund', { principal: 'alice', incarnation: 'life-7' });

    // Assess
    expect((await sessions.load('s2'))?.data).toMatchObject({
      owner: 'alice',
      incarnation: 'life-7',
    });
  });

  it('an ownerless session is nobody’s: a principal’s turn there is refused', async () => {
    // Prepare: a session of the Runtime used without principals.
    const { runtime } = setup();
    await runtime.run('refunds', 's3', 'refund', { runId: 'r3' });

    // Act + Assess
    await expect(
      runtime.run('refunds', 's3', 'mine now', { principal: 'mallory' }),
    ).rejects.toMatchObject({ code: 'session-forbidden' });
    await expect(runtime.clearSession('s3', { principal: 'mallory' })).rejects.toMatchObject({
      code: 'session-forbidden',
    });
  });
});
