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

/** A runner that pauses every new turn; `supportsPause` is what it claims, whatever it has. */
class Pauser implements Runner<unknown> {
  readonly name = 'pauser';
  readonly supportsStreaming = true;
  readonly reservedRunOptions = {};
  resumes = 0;

  constructor(readonly supportsPause: boolean) {}

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
    return { status: 'completed', text: 'resumed', state: {}, context: input.context };
  }
}

describe('a runner that cannot pause', () => {
  it('has its paused runs refused with pause-unsupported, even with a resumeStream; nothing runs or changes', async () => {
    // Prepare: one deployment paused the run; the next one's runner says it cannot pause.
    const sessions = new InMemorySessionStore();
    const pausedRuns = new InMemoryPausedRunStore();
    const before = new Runtime({
      sessions,
      pausedRuns,
      agents: [new Agent({ name: 'refunds', native: {}, runner: new Pauser(true) })],
    });
    const paused = await before.run('refunds', 's1', 'refund order 7', { runId: 'r1' });
    expect(paused.status).toBe('paused');
    const runner = new Pauser(false);
    const after = new Runtime({
      sessions,
      pausedRuns,
      agents: [new Agent({ name: 'refunds', native: {}, runner })],
    });

    // Act
    const refused = await after
      .resume('s1', 'r1', [{ id: 'call-1', status: 'approved' }])
      .catch((err: unknown) => err);

    // Assess
    expect(refused).toMatchObject({
      code: 'pause-unsupported',
      message: 'The pauser runner cannot resume paused runs.',
    });
    expect(runner.resumes).toBe(0);
    expect(await pausedRuns.get('s1', 'r1')).toMatchObject({ runId: 'r1' });
  });
});
