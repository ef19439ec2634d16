import { describe, expect, it } from 'vitest';
import {
  currentToolContext,
  type JsonValue,
  type PreHook,
  Runtime,
  type ToolContext,
} from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { FakeRunner, fakeAgent } from './fake-runner.js';

function setup(preHooks: PreHook[]) {
  const runner = new FakeRunner();
  const sessions = new InMemorySessionStore();
  const runtime = new Runtime({ sessions, agents: [fakeAgent(runner, { preHooks })] });
  return { runner, sessions, runtime };
}

describe('what hooks and tools reach', () => {
  it('a pre-hook seeds the framework context: the runner gets it, a success stores it', async () => {
    // Prepare
    const seed: PreHook = {
      name: 'tenant',
      onRun: (turn) => {
        turn.context.tenant = 'acme';
      },
    };
    const { runner, sessions, runtime } = setup([seed]);
    runner.script({ steps: [{ fail: new Error('model down') }] });

    // Act
    const failed = await runtime.run('echo', 's1', 'one').catch((e: unknown) => e);
    const afterFailure = await sessions.load('s1');
    await runtime.run('echo', 's1', 'two');

    // Assess
    expect(failed).toBeInstanceOf(Error);
    expect(afterFailure).toBeUndefined();
    expect(runner.inputs.map((i) => i.context.tenant)).toEqual(['acme', 'acme']);
    expect((await sessions.load('s1'))?.data.context).toEqual({ tenant: 'acme' });
  });

  it('a hook reads a copy of its agent’s framework session', async () => {
    // Prepare
    const seen: (JsonValue | undefined)[] = [];
    const reader: PreHook = {
      name: 'reader',
      onRun: (turn) => {
        const slot = turn.frameworkSession();
        seen.push(structuredClone(slot));
        if (slot && typeof slot === 'object' && 'history' in slot) slot.history = ['tampered'];
      },
    };
    const { runner, runtime } = setup([reader]);

    // Act
    await runtime.run('echo', 's1', 'first');
    await runtime.run('echo', 's1', 'second');

    // Assess: nothing on the first turn; the runner's stored slot on the next, untouched by the hook.
    expect(seen).toEqual([undefined, { history: ['first', 'echo: first'] }]);
    expect(runner.inputs[1]?.state).toEqual({ history: ['first', 'echo: first'] });
  });

  it('a tool sees the turn’s requests in its context, after pre-hooks rewrote them', async () => {
    // Prepare
    const rewrite: PreHook = {
      name: 'rewrite',
      onRun: () => ({ requests: [{ type: 'text', text: 'rewritten' }] }),
    };
    const { runner, runtime } = setup([rewrite]);
    let ctx: ToolContext | undefined;
    runner.script({
      steps: [
        {
          call: () => {
            ctx = currentToolContext();
          },
        },
      ],
    });

    // Act
    await runtime.run('echo', 's1', 'original');

    // Assess
    expect(ctx?.requests).toEqual([{ type: 'text', text: 'rewritten' }]);
  });
});
