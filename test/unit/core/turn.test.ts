import { describe, expect, it } from 'vitest';
import {
  newSession,
  type PostHook,
  type PreHook,
  Runtime,
  type StoredSession,
} from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import {
  collect,
  FakeRunner,
  failureOf,
  fakeAgent,
  historyOf,
  last,
  RecordingStore,
} from './fake-runner.js';

const pre = (log: string[], name: string): PreHook => ({
  name,
  onRun: () => void log.push(name),
});
const post = (log: string[], name: string): PostHook => ({
  name,
  onRun: () => void log.push(name),
});

function orderedRuntime() {
  const log: string[] = [];
  const store = new RecordingStore(log);
  const runner = new FakeRunner({ log });
  const agent = fakeAgent(runner, {
    preHooks: [pre(log, 'agent-pre-1'), pre(log, 'agent-pre-2')],
    postHooks: [post(log, 'agent-post-1'), post(log, 'agent-post-2')],
  });
  const runtime = new Runtime({
    sessions: store,
    preHooks: [pre(log, 'system-pre-1'), pre(log, 'system-pre-2')],
    postHooks: [post(log, 'system-post-1'), post(log, 'system-post-2')],
    agents: [agent],
  });
  return { log, store, runtime };
}

const TURN_ORDER = [
  'agent-pre-1',
  'agent-pre-2',
  'system-pre-1',
  'system-pre-2',
  'fake:start',
  'fake:end',
  'agent-post-1',
  'agent-post-2',
  'system-post-1',
  'system-post-2',
  'save',
];

describe('order of a turn', () => {
  it('streams: pre-hooks, runner, post-hooks, save, then run-finished', async () => {
    // Prepare
    const { log, store, runtime } = orderedRuntime();
    let storedAtFinish: StoredSession | undefined;

    // Act
    await collect(runtime.stream('echo', 's1', 'hi'), async (event) => {
      if (event.type !== 'run-finished') return;
      log.push('run-finished');
      storedAtFinish = await store.load('s1');
    });

    // Assess
    expect(log).toEqual([...TURN_ORDER, 'run-finished']);
    expect(storedAtFinish?.version).toBe(1);
    expect(historyOf(storedAtFinish?.data)).toEqual(['hi', 'echo: hi']);
  });

  it('runs: the same order, stored before the reply is returned', async () => {
    // Prepare
    const { log, store, runtime } = orderedRuntime();

    // Act
    const reply = await runtime.run('echo', 's1', 'hi');

    // Assess
    expect(log).toEqual(TURN_ORDER);
    expect(reply).toMatchObject({ status: 'completed', text: 'echo: hi' });
    expect(historyOf((await store.load('s1'))?.data)).toEqual(['hi', 'echo: hi']);
  });
});

describe('session bookkeeping', () => {
  it('creates the session on the first turn and updates it on later ones', async () => {
    // Prepare
    let clock = 1000;
    const store = new InMemorySessionStore();
    const runner = new FakeRunner();
    const runtime = new Runtime({ sessions: store, agents: [fakeAgent(runner)], now: () => clock });

    // Act
    await runtime.run('echo', 's1', 'one', { principal: 'ann' });
    clock = 2000;
    await runtime.run('echo', 's1', 'two', { principal: 'ann' });

    // Assess
    const stored = await store.load('s1');
    expect(stored?.version).toBe(2);
    expect(stored?.data).toMatchObject({
      id: 's1',
      owner: 'ann',
      agent: 'echo',
      turns: 2,
      createdAt: 1000,
      updatedAt: 2000,
    });
    expect(historyOf(stored?.data)).toEqual(['one', 'echo: one', 'two', 'echo: two']);
    expect(runner.inputs[1]?.state).toEqual({ history: ['one', 'echo: one'] });
  });

  it('keeps other runners’ slots and refuses to overwrite a concurrent writer', async () => {
    // Prepare
    const store = new InMemorySessionStore();
    await store.save({ ...newSession('s1', 0), state: { other: { keep: true } } }, 0);
    const runner = new FakeRunner();
    const runtime = new Runtime({ sessions: store, agents: [fakeAgent(runner)] });
    await runtime.run('echo', 's1', 'one');
    runner.script({
      steps: [
        {
          // Another instance (no shared lock) saves while this turn runs.
          call: async () => {
            const current = await store.load('s1');
            if (current) await store.save({ ...current.data, turns: 99 }, current.version);
          },
        },
      ],
    });

    // Act
    const failure = await failureOf(runtime.run('echo', 's1', 'two'));

    // Assess
    expect(failure).toMatchObject({ code: 'session-conflict' });
    const stored = await store.load('s1');
    expect(stored?.version).toBe(3);
    expect(stored?.data.turns).toBe(99);
    expect(stored?.data.state.other).toEqual({ keep: true });
    expect(historyOf(stored?.data)).toEqual(['one', 'echo: one']);
  });
});

describe('framework context', () => {
  async function seeded() {
    const store = new InMemorySessionStore();
    await store.save({ ...newSession('s1', 0), context: { user: { name: 'ann' }, count: 1 } }, 0);
    const runner = new FakeRunner();
    const runtime = new Runtime({ sessions: store, agents: [fakeAgent(runner)] });
    return { store, runner, runtime };
  }

  it('hands the runner a deep copy: changes made in a failing run are not stored', async () => {
    // Prepare
    const { store, runner, runtime } = await seeded();
    const before = await store.load('s1');
    runner.script({
      steps: [
        {
          call: (input) => {
            (input.context.user as { name: string }).name = 'mallory';
            input.context.count = 100;
          },
        },
        { fail: new Error('boom') },
      ],
    });

    // Act
    const failure = await failureOf(runtime.run('echo', 's1', 'hi'));

    // Assess
    expect(failure).toMatchObject({ code: 'runner-error' });
    expect(runner.inputs[0]?.context).toEqual({ user: { name: 'mallory' }, count: 100 });
    expect(await store.load('s1')).toEqual(before);
  });

  it('merges the returned context shallowly over the stored one after success', async () => {
    // Prepare
    const { store, runner, runtime } = await seeded();
    runner.script({
      // Only what the runner returns is merged: in-place changes to its copy go nowhere else.
      steps: [{ call: (input) => ((input.context.user as { name: string }).name = 'copy') }],
      context: () => ({ count: 2, theme: 'dark' }),
    });

    // Act
    await runtime.run('echo', 's1', 'hi');

    // Assess
    const stored = await store.load('s1');
    expect(runner.inputs[0]?.context).toEqual({ user: { name: 'copy' }, count: 1 });
    expect(stored?.data.context).toEqual({ user: { name: 'ann' }, count: 2, theme: 'dark' });
  });

  it('refuses a context that is not JSON with invalid-context and stores nothing', async () => {
    // Prepare
    const store = new InMemorySessionStore();
    const runner = new FakeRunner();
    const runtime = new Runtime({ sessions: store, agents: [fakeAgent(runner)] });
    runner.script(
      { context: () => ({ callback: () => 'hi' }) },
      { context: () => ({ prefs: { theme: 'dark', onChange: () => 'hi' } }) },
      { context: () => ({ stats: { ratio: Number.NaN } }) },
      { context: () => ({ when: new Date(0) }) },
    );

    // Act
    const failure = await failureOf(runtime.run('echo', 's1', 'hi'));
    const events = await collect(runtime.stream('echo', 's1', 'hi'));
    const nan = await failureOf(runtime.run('echo', 's1', 'hi'));
    const date = await failureOf(runtime.run('echo', 's1', 'hi'));

    // Assess
    expect(failure).toMatchObject({ code: 'invalid-context' });
    expect(failure.message).toBe(
      'Framework context must be JSON: the value at "callback" is not JSON.',
    );
    expect(last(events, 'run-error')).toMatchObject({ code: 'invalid-context' });
    expect(last(events, 'run-error').message).toContain('"prefs.onChange"');
    expect(nan.message).toContain('"stats.ratio"');
    expect(date).toMatchObject({ code: 'invalid-context' });
    expect(store.size).toBe(0);
  });
});
