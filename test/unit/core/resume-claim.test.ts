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
import { TestClock } from '../../../lib/testing/store-contract-context.js';

/** Pauses every new turn on one approval; a resume completes with the decision. */
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
    return {
      status: 'completed',
      text: `refund ${input.decisions[0]?.status}`,
      state: { done: true },
      context: input.context,
    };
  }
}

const CLAIM_MS = 1_000;

async function pausedSetup() {
  const clock = new TestClock();
  const runner = new ApprovalRunner();
  const sessions = new InMemorySessionStore({ now: clock.now });
  const pausedRuns = new InMemoryPausedRunStore({ now: clock.now });
  const runtime = new Runtime({
    sessions,
    pausedRuns,
    resumeClaimMs: CLAIM_MS,
    now: clock.now,
    agents: [new Agent({ name: 'refunds', native: {}, runner })],
  });
  const reply = await runtime.run('refunds', 's1', 'refund order 7', { runId: 'r1' });
  expect(reply.status).toBe('paused');
  return { clock, runner, sessions, pausedRuns, runtime };
}

const approve = [{ id: 'call-1', status: 'approved' as const }];

describe('Runtime resume after a holder died', () => {
  it('refuses while the dead holder’s claim holds, and resumes once it lapsed', async () => {
    // Prepare: a resume claimed the run, then its process died (no release ever runs).
    const { clock, runner, sessions, pausedRuns, runtime } = await pausedSetup();
    await pausedRuns.claim('s1', 'r1', { claimMs: CLAIM_MS });

    // Act
    clock.advance(CLAIM_MS - 1);
    const early = await runtime.resume('s1', 'r1', approve).catch((err: unknown) => err);
    clock.advance(1);
    const late = await runtime.resume('s1', 'r1', approve);

    // Assess
    expect(early).toMatchObject({ code: 'run-already-resumed' });
    expect(late).toMatchObject({ status: 'completed', text: 'refund approved' });
    expect(runner.resumes).toBe(1);
    expect(await pausedRuns.get('s1', 'r1')).toBeUndefined();
    expect((await sessions.load('s1'))?.data.paused).toBeUndefined();
  });

  it('claims for resumeClaimMs: a resume that dies in the runner blocks only that long', async () => {
    // Prepare: a second instance's resume hangs in the runner, as a Lambda about to time out.
    const { clock, runner, sessions, pausedRuns, runtime } = await pausedSetup();
    const hanging = new Runtime({
      sessions,
      pausedRuns,
      resumeClaimMs: CLAIM_MS,
      now: clock.now,
      agents: [
        new Agent({
          name: 'refunds',
          native: {},
          runner: Object.assign(new ApprovalRunner(), {
            resumeStream: async function* (): RunnerStream {
              return await new Promise<never>(() => {});
            },
          }),
        }),
      ],
    });
    void hanging.resume('s1', 'r1', approve);
    await expect.poll(async () => (await pausedRuns.get('s1', 'r1'))?.status).toBe('resuming');

    // Act
    const early = await runtime.resume('s1', 'r1', approve).catch((err: unknown) => err);
    clock.advance(CLAIM_MS);
    const late = await runtime.resume('s1', 'r1', approve);

    // Assess
    expect(early).toMatchObject({ code: 'run-already-resumed' });
    expect(late).toMatchObject({ status: 'completed' });
    expect(runner.resumes).toBe(1);
  });

  it('does not run the decisions again when the dead holder had stored the session', async () => {
    // Prepare: the holder saved the session (marker gone) and died before deleting the run.
    const { clock, runner, sessions, pausedRuns, runtime } = await pausedSetup();
    await pausedRuns.claim('s1', 'r1', { claimMs: CLAIM_MS });
    const stored = await sessions.load('s1');
    const { paused: _marker, ...rest } = stored!.data;
    await sessions.save({ ...rest, turns: stored!.data.turns + 1 }, stored!.version);

    // Act
    clock.advance(CLAIM_MS);
    const again = await runtime.resume('s1', 'r1', approve).catch((err: unknown) => err);

    // Assess
    expect(again).toMatchObject({ code: 'run-already-resumed' });
    expect(runner.resumes).toBe(0);
    expect(await pausedRuns.get('s1', 'r1')).toBeUndefined();
  });
});
