import { describe, expect, it, vi } from 'vitest';
import { Agent, Runtime } from '../../../lib/core/index.js';
import { InMemoryPausedRunStore, InMemorySessionStore } from '../../../lib/stores/index.js';
import { FakeRunner, fakeAgent, Gate } from './fake-runner.js';

function setup() {
  const runner = new FakeRunner();
  const sessions = new InMemorySessionStore();
  const pausedRuns = new InMemoryPausedRunStore();
  const runtime = new Runtime({ sessions, pausedRuns, agents: [fakeAgent(runner)] });
  return { runner, sessions, pausedRuns, runtime };
}

describe('Runtime.clearSession', () => {
  it('forgets the owner’s session; the next turn starts with no history', async () => {
    // Prepare
    const { runner, sessions, runtime } = setup();
    await runtime.run('echo', 's1', 'first', { principal: 'alice' });

    // Act
    const cleared = await runtime.clearSession('s1', { principal: 'alice' });
    const gone = await sessions.load('s1');
    await runtime.run('echo', 's1', 'second', { principal: 'alice' });

    // Assess
    expect(cleared).toEqual({ sessionId: 's1', cleared: true });
    expect(gone).toBeUndefined();
    expect(runner.inputs[1]?.state).toBeUndefined();
  });

  it('refuses another principal and changes nothing; an absent session is not cleared', async () => {
    // Prepare
    const { sessions, runtime } = setup();
    await runtime.run('echo', 's1', 'first', { principal: 'alice' });

    // Act
    const refused = runtime.clearSession('s1', { principal: 'mallory' });
    const absent = await runtime.clearSession('nope', { principal: 'alice' });

    // Assess
    await expect(refused).rejects.toMatchObject({ code: 'session-forbidden' });
    expect((await sessions.load('s1'))?.data.turns).toBe(1);
    expect(absent).toEqual({ sessionId: 'nope', cleared: false });
    await expect(runtime.clearSession('bad id!', {})).rejects.toMatchObject({
      code: 'invalid-request',
    });
  });

  it('waits for a running turn, then clears what it stored', async () => {
    // Prepare
    const { runner, sessions, runtime } = setup();
    const gate = new Gate();
    runner.script({ steps: [{ wait: gate.promise }] });
    const turn = runtime.run('echo', 's1', 'slow');
    await vi.waitFor(() => expect(runner.active).toBe(1));

    // Act
    const clearing = runtime.clearSession('s1');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const midTurn = runner.active;
    gate.open();
    await turn;
    const cleared = await clearing;

    // Assess
    expect(midTurn).toBe(1);
    expect(cleared.cleared).toBe(true);
    expect(await sessions.load('s1')).toBeUndefined();
  });

  it('deletes the session’s paused runs, so none can be resumed', async () => {
    // Prepare
    const sessions = new InMemorySessionStore();
    const pausedRuns = new InMemoryPausedRunStore();
    const runner = {
      name: 'pauser',
      supportsStreaming: true,
      supportsPause: true,
      reservedRunOptions: {},
      // biome-ignore lint/correctness/useYield: pauses before any event
      async *stream(input: { context: Record<string, unknown> }) {
        return {
          status: 'paused' as const,
          interruptions: [{ id: 'c1', kind: 'tool-approval' as const, toolName: 'pay' }],
          pausedState: {},
          context: input.context,
        };
      },
      // biome-ignore lint/correctness/useYield: never reached
      async *resumeStream(): AsyncGenerator<never, never> {
        throw new Error('must not resume');
      },
    };
    const runtime = new Runtime({
      sessions,
      pausedRuns,
      agents: [new Agent({ name: 'pay', native: {}, runner })],
    });
    await runtime.run('pay', 's1', 'pay', { runId: 'r1' });

    // Act
    await runtime.clearSession('s1');

    // Assess
    expect(await pausedRuns.get('s1', 'r1')).toBeUndefined();
    await expect(
      runtime.resume('s1', 'r1', [{ id: 'c1', status: 'approved' }]),
    ).rejects.toMatchObject({ code: 'paused-run-not-found' });
  });
});
