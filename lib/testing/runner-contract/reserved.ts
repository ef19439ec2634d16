import { expect, it } from 'vitest';
import type { RunnerStream } from '../../core/runner.js';
import type { ContractWorld } from './world.js';

/**
 * The kernel's keys win even past the runtime's checks: a caller that hands a runner every
 * reserved run option itself (straight to `runner.stream`, as nothing in the runtime would let
 * through) still gets the kernel's turn — the request's text, the scripted reply, and none of
 * the injected values in any model request.
 */
export function registerReservedChecks(world: ContractWorld): void {
  it('keeps the kernel’s own values when reserved run options bypass the checks', async () => {
    // Prepare
    const agent = world.runtime.agent('agent');
    const reserved = Object.keys(agent.runner.reservedRunOptions);
    const options = Object.fromEntries(reserved.map((key) => [key, `INJECTED-${key}`]));
    world.server.push({ text: 'Kernel wins.' });

    // Act: for each runner the same direct call, both paths where it has two.
    const stream: RunnerStream = agent.runner.stream({
      runId: 'r-bypass',
      sessionId: 's-bypass',
      agent,
      requests: [{ type: 'text', text: 'Say it plainly.' }],
      state: undefined,
      context: {},
      options,
      signal: new AbortController().signal,
    });
    let step = await stream.next();
    while (!step.done) step = await stream.next();

    // Assess
    expect(reserved.length).toBeGreaterThan(0);
    expect(step.value).toMatchObject({ status: 'completed', text: 'Kernel wins.' });
    const sent = JSON.stringify(world.server.requests.map((r) => r.body));
    expect(sent).toContain('Say it plainly.');
    expect(sent).not.toContain('INJECTED-');
  });
}
