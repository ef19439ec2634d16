import { describe, expect, it } from 'vitest';
import { AGENTS_ENV, announceBundling, chosenAgentsEntry } from '../../infra/bundling.js';
import { PROJECT_ROOT } from '../../infra/constructs/kernel-function.js';

const fail = (message: string): never => {
  throw new Error(message);
};

describe('the agents module synth bundles (infra/bundling.ts)', () => {
  it('takes the agentsEntry context first, then AGENT_KERNEL_AGENTS, else none (the demo)', () => {
    const env = { [AGENTS_ENV]: 'test/e2e/fixtures/parrot-agents.ts' };
    expect(chosenAgentsEntry('examples/demo/agents.ts', PROJECT_ROOT, env, fail)).toBe(
      'examples/demo/agents.ts',
    );
    expect(chosenAgentsEntry(undefined, PROJECT_ROOT, env, fail)).toBe(
      'test/e2e/fixtures/parrot-agents.ts',
    );
    expect(chosenAgentsEntry(undefined, PROJECT_ROOT, {}, fail)).toBeUndefined();
  });

  it('stops on a module that is not there, saying where the path came from', () => {
    expect(() =>
      chosenAgentsEntry(undefined, PROJECT_ROOT, { [AGENTS_ENV]: 'missing.ts' }, fail),
    ).toThrow(
      /^error: agents module not found: \S+missing\.ts \(from AGENT_KERNEL_AGENTS\)\nhint: /,
    );
  });

  it('announces each bundle under the CDK CLI only', () => {
    const lines: string[] = [];
    announceBundling('WorkerFunction', 'my-agents.ts', {}, (l) => lines.push(l));
    announceBundling('WorkerFunction', 'my-agents.ts', { CDK_OUTDIR: 'cdk.out' }, (l) =>
      lines.push(l),
    );
    expect(lines).toEqual(['agent-kernel: bundling WorkerFunction (#agents: my-agents.ts)…']);
  });
});
