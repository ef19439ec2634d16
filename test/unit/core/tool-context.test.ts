import { describe, expect, it } from 'vitest';
import {
  currentToolContext,
  Runtime,
  type ToolContext,
  tryToolContext,
} from '../../../lib/core/index.js';
import { InMemorySessionStore } from '../../../lib/stores/index.js';
import { collect, FakeRunner, fakeAgent } from './fake-runner.js';

function later<T>(fn: () => T): Promise<T> {
  return new Promise((resolve, reject) => {
    setTimeout(() => {
      try {
        resolve(fn());
      } catch (err) {
        reject(err);
      }
    }, 0);
  });
}

describe('ToolContext', () => {
  it('is visible inside the runner and in async callbacks it starts, in run and stream', async () => {
    // Prepare
    const seen: ToolContext[] = [];
    const runner = new FakeRunner();
    const step = {
      call: async () => {
        seen.push(currentToolContext());
        seen.push(await later(currentToolContext));
      },
    };
    runner.script(
      { steps: [step] },
      { steps: [{ event: { type: 'step-start', stepId: 'x' } }, step] },
    );
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      agents: [fakeAgent(runner)],
    });

    // Act
    await runtime.run('echo', 's1', 'hi', { runId: 'r1', principal: 'ann' });
    await collect(runtime.stream('echo', 's2', 'hi', { runId: 'r2' }));

    // Assess
    expect(seen).toHaveLength(4);
    expect(seen[0]).toMatchObject({
      runId: 'r1',
      sessionId: 's1',
      agent: 'echo',
      principal: 'ann',
    });
    expect(seen[1]).toBe(seen[0]);
    expect(seen[0]?.signal).toBe(runner.inputs[0]?.signal);
    expect(seen[2]).toMatchObject({ runId: 'r2', sessionId: 's2', agent: 'echo' });
    expect(seen[3]).toBe(seen[2]);
  });

  it('is absent outside a run', async () => {
    // Prepare
    const runtime = new Runtime({
      sessions: new InMemorySessionStore(),
      agents: [fakeAgent(new FakeRunner())],
    });
    await runtime.run('echo', 's1', 'hi');

    // Act
    const outside = () => currentToolContext();

    // Assess
    expect(outside).toThrow(expect.objectContaining({ code: 'no-tool-context' }));
    expect(tryToolContext()).toBeUndefined();
  });
});
