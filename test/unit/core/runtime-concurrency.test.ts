import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Runtime } from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import {
  collect,
  FakeRunner,
  failureOf,
  fakeAgent,
  Gate,
  historyOf,
  last,
  settle,
} from './fake-runner.js';

// How turns end early (consumer gone, caller abort) and how turns of sessions interleave.

function setup() {
  const runner = new FakeRunner();
  const store = new InMemorySessionStore();
  const runtime = new Runtime({ sessions: store, agents: [fakeAgent(runner)] });
  return { runner, store, runtime };
}

describe('a consumer that stops reading', () => {
  it('aborts the runner, stores nothing and releases the session', async () => {
    // Prepare
    const { runner, store, runtime } = setup();
    runner.script({
      steps: [
        { event: { type: 'message-start', messageId: 'm1' } },
        { event: { type: 'text-delta', messageId: 'm1', delta: 'a' } },
        { event: { type: 'text-delta', messageId: 'm1', delta: 'b' } },
      ],
    });

    // Act
    for await (const event of runtime.stream('echo', 's1', 'first')) {
      if (event.type === 'text-delta') break;
    }
    const stored = await store.load('s1');
    const next = await runtime.run('echo', 's1', 'second');

    // Assess
    expect(runner.inputs[0]?.signal.aborted).toBe(true);
    expect(runner.inputs[0]?.signal.reason).toMatchObject({ code: 'run-aborted' });
    expect(runner.outcomes).toEqual(['closed', 'completed']);
    expect(stored).toBeUndefined();
    expect(next).toMatchObject({ text: 'echo: second' });
    expect(historyOf((await store.load('s1'))?.data)).toEqual(['second', 'echo: second']);
  });
});

describe('the caller’s AbortSignal', () => {
  it('aborts a running turn with run-aborted and stores nothing', async () => {
    // Prepare
    const { runner, store, runtime } = setup();
    const entered = new Gate();
    const never = new Gate();
    runner.script(
      { steps: [{ call: () => entered.open() }, { wait: never.promise }] },
      { steps: [{ call: () => streamController.abort() }, { wait: never.promise }] },
    );
    const controller = new AbortController();
    const streamController = new AbortController();

    // Act
    const running = failureOf(runtime.run('echo', 's1', 'hi', { signal: controller.signal }));
    await entered.promise;
    controller.abort();
    const failure = await running;
    const events = await collect(
      runtime.stream('echo', 's2', 'hi', { signal: streamController.signal }),
    );

    // Assess
    expect(failure.code).toBe('run-aborted');
    expect(last(events, 'run-error').code).toBe('run-aborted');
    expect(runner.outcomes).toEqual(['failed', 'failed']);
    expect(store.size).toBe(0);
  });

  it('stores nothing when the runner ignores the abort and completes anyway', async () => {
    // Prepare
    const { runner, store, runtime } = setup();
    const entered = new Gate();
    const finish = new Gate();
    // A `call` step awaits its promise without looking at the signal.
    runner.script({
      steps: [
        {
          call: async () => {
            entered.open();
            await finish.promise;
          },
        },
      ],
    });
    const controller = new AbortController();

    // Act
    const running = failureOf(runtime.run('echo', 's1', 'hi', { signal: controller.signal }));
    await entered.promise;
    controller.abort();
    finish.open();
    const failure = await running;

    // Assess
    expect(runner.outcomes).toEqual(['completed']);
    expect(failure.code).toBe('run-aborted');
    expect(store.size).toBe(0);
  });

  it('refuses a signal that is already aborted with run-aborted', async () => {
    // Prepare
    const { runner, runtime } = setup();
    const signal = AbortSignal.abort(new Error('user left'));

    // Act
    const failure = await failureOf(runtime.run('echo', 's1', 'hi', { signal }));
    const events = await collect(runtime.stream('echo', 's1', 'hi', { signal }));

    // Assess
    expect(failure.code).toBe('run-aborted');
    expect(last(events, 'run-error').code).toBe('run-aborted');
    expect(runner.inputs).toHaveLength(0);
  });

  it('leaves no listener behind on a signal the caller reuses for many runs', async () => {
    // Prepare
    const { runtime } = setup();
    const { signal } = new AbortController();

    // Act
    for (const text of ['a', 'b', 'c']) await runtime.run('echo', 's1', text, { signal });
    await collect(runtime.stream('echo', 's1', 'd', { signal }));

    // Assess
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('gives up waiting for the session lock without blocking the queue', async () => {
    // Prepare
    const { runner, store, runtime } = setup();
    const entered = new Gate();
    const release = new Gate();
    runner.script({ steps: [{ call: () => entered.open() }, { wait: release.promise }] });
    const first = runtime.run('echo', 's1', 'one');
    await entered.promise;
    const controller = new AbortController();
    const waiting = failureOf(runtime.run('echo', 's1', 'two', { signal: controller.signal }));
    const third = runtime.run('echo', 's1', 'three');

    // Act
    controller.abort();
    const failure = await waiting;
    release.open();
    await Promise.all([first, third]);

    // Assess
    expect(failure.code).toBe('run-aborted');
    expect(historyOf((await store.load('s1'))?.data)).toEqual([
      'one',
      'echo: one',
      'three',
      'echo: three',
    ]);
    expect(runner.inputs).toHaveLength(2);
  });
});

describe('turns of sessions', () => {
  it('runs two turns of one session one after the other', async () => {
    // Prepare
    const { runner, store, runtime } = setup();
    const entered = new Gate();
    const release = new Gate();
    runner.script({ steps: [{ call: () => entered.open() }, { wait: release.promise }] });

    // Act
    const first = runtime.run('echo', 's1', 'one');
    await entered.promise;
    const second = collect(runtime.stream('echo', 's1', 'two'));
    await settle();
    const startedWhileFirstHeld = runner.inputs.length;
    release.open();
    await Promise.all([first, second]);

    // Assess
    expect(startedWhileFirstHeld).toBe(1);
    expect(runner.maxActive).toBe(1);
    const stored = await store.load('s1');
    expect(stored?.version).toBe(2);
    expect(historyOf(stored?.data)).toEqual(['one', 'echo: one', 'two', 'echo: two']);
  });

  it('runs turns of two sessions at the same time', async () => {
    // Prepare
    const { runner, store, runtime } = setup();
    const inA = new Gate();
    const inB = new Gate();
    // Each turn waits until the other is inside its runner: serialised turns would deadlock.
    runner.script(
      { steps: [{ call: () => inA.open() }, { wait: inB.promise }] },
      { steps: [{ call: () => inB.open() }, { wait: inA.promise }] },
    );

    // Act
    const [a, b] = await Promise.all([
      runtime.run('echo', 'a', 'one'),
      collect(runtime.stream('echo', 'b', 'two')),
    ]);

    // Assess
    expect(runner.maxActive).toBe(2);
    expect(a).toMatchObject({ sessionId: 'a', text: 'echo: one' });
    expect(last(b, 'run-finished').reply).toMatchObject({ sessionId: 'b', text: 'echo: two' });
    expect(store.size).toBe(2);
  });
});
