import { describe, expect, it } from 'vitest';
import {
  Module,
  ReservedRunOption,
  type RunOptionsContext,
  Runtime,
} from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { collect, FakeRunner, failureOf, fakeAgent, last } from './fake-runner.js';

const RESERVED = {
  context: 'the runtime passes the framework context itself; keep values in the session context',
  signal: 'the runtime owns cancellation; pass an AbortSignal to run()',
};

describe('run options', () => {
  it('merges declaration, factory and per-call options (later wins), resolved once per run', async () => {
    // Prepare
    const runner = new FakeRunner();
    const factoryCalls: RunOptionsContext[] = [];
    const seenByHook: unknown[] = [];
    const agent = fakeAgent(runner, {
      runOptions: { maxTurns: 5, temperature: 0.1, tag: 'declared' },
      runOptionsFactory: async (ctx) => {
        factoryCalls.push(ctx);
        return { temperature: 0.5, tag: 'factory', user: ctx.principal };
      },
      preHooks: [{ name: 'see', onRun: (turn) => void seenByHook.push(turn.runOptions) }],
    });
    const runtime = new Runtime({ sessions: new InMemorySessionStore(), agents: [agent] });

    // Act
    await runtime.run('echo', 's1', 'hi', {
      runId: 'r1',
      principal: 'ann',
      runOptions: { tag: 'call', extra: true },
    });
    await collect(runtime.stream('echo', 's1', 'again', { principal: 'ann' }));

    // Assess
    expect(runner.inputs[0]?.options).toEqual({
      maxTurns: 5,
      temperature: 0.5,
      tag: 'call',
      user: 'ann',
      extra: true,
    });
    expect(runner.inputs[1]?.options).toEqual({
      maxTurns: 5,
      temperature: 0.5,
      tag: 'factory',
      user: 'ann',
    });
    expect(seenByHook).toEqual([runner.inputs[0]?.options, runner.inputs[1]?.options]);
    expect(factoryCalls).toHaveLength(2);
    expect(factoryCalls[0]).toEqual({
      runId: 'r1',
      sessionId: 's1',
      agent: 'echo',
      requests: [{ type: 'text', text: 'hi' }],
      principal: 'ann',
    });
  });

  it('passes the declaration alone when there is no factory and no per-call option', async () => {
    // Prepare
    const runner = new FakeRunner();
    const agent = fakeAgent(runner, { runOptions: { maxTurns: 3 } });
    const runtime = new Runtime({ sessions: new InMemorySessionStore(), agents: [agent] });

    // Act
    await runtime.run('echo', 's1', 'hi');

    // Assess
    expect(runner.inputs[0]?.options).toEqual({ maxTurns: 3 });
  });

  it('refuses a reserved key at declaration with one line naming the key and the reason', () => {
    // Prepare
    const runner = new FakeRunner({ name: 'openai', reservedRunOptions: RESERVED });

    // Act
    const declare = () => fakeAgent(runner, { runOptions: { maxTurns: 2, context: {} } });

    // Assess
    expect(declare).toThrow(ReservedRunOption);
    let error: ReservedRunOption | undefined;
    try {
      declare();
    } catch (err) {
      error = err as ReservedRunOption;
    }
    expect(error?.code).toBe('reserved-run-option');
    expect(error?.key).toBe('context');
    expect(error?.message).toBe(
      `Run option "context" is reserved by the openai runner: ${RESERVED.context}`,
    );
    expect(error?.message).not.toContain('\n');
  });

  it('refuses a reserved key from the factory at run time, before the runner', async () => {
    // Prepare
    const runner = new FakeRunner({ reservedRunOptions: RESERVED });
    const agent = fakeAgent(runner, { runOptionsFactory: () => ({ signal: 'mine' }) });
    const store = new InMemorySessionStore();
    const runtime = new Runtime({ sessions: store, agents: [agent] });

    // Act
    const failure = await failureOf(runtime.run('echo', 's1', 'hi'));
    const events = await collect(runtime.stream('echo', 's1', 'hi'));

    // Assess
    expect(failure).toBeInstanceOf(ReservedRunOption);
    expect(failure).toMatchObject({ code: 'reserved-run-option', key: 'signal' });
    expect(last(events, 'run-error').code).toBe('reserved-run-option');
    expect(runner.inputs).toHaveLength(0);
    expect(store.size).toBe(0);
  });

  it('refuses a reserved key passed per call', async () => {
    // Prepare
    const runner = new FakeRunner({ reservedRunOptions: RESERVED });
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      agents: [fakeAgent(runner)],
    });

    // Act
    const failure = await failureOf(
      runtime.run('echo', 's1', 'hi', { runOptions: { context: { a: 1 } } }),
    );

    // Assess
    expect(failure).toMatchObject({ code: 'reserved-run-option', key: 'context' });
    expect(runner.inputs).toHaveLength(0);
  });

  it('refuses a reserved key given through Module.add, and the module keeps no such agent', () => {
    // Prepare
    class EchoModule extends Module<{ id: string }> {
      protected describe(native: { id: string }) {
        return { name: native.id, description: 'echo' };
      }
    }
    const module = new EchoModule(new FakeRunner({ name: 'openai', reservedRunOptions: RESERVED }));

    // Act
    const add = () => module.add({ id: 'echo' }, { runOptions: { signal: 'mine' } });

    // Assess
    expect(add).toThrow(expect.objectContaining({ code: 'reserved-run-option', key: 'signal' }));
    expect(module.agents).toEqual([]);
    expect(module.add({ id: 'echo' }, { runOptions: { maxTurns: 2 } }).name).toBe('echo');
  });
});
