import { describe, expect, it } from 'vitest';
import { expectFriendly, npmRun, userEnv } from './helpers/cli.js';

// `npm run synth` with the agents setting. A module that is there is bundled for the functions
// in test/e2e/agents-project.test.ts (an external project's, with the progress lines); this file
// keeps the module that is not there, which stops before any bundling.
describe('npm run synth with AGENT_KERNEL_AGENTS', () => {
  it('stops in one sentence when the module is not there', async () => {
    // Act
    const ran = await npmRun(
      ['synth'],
      userEnv({ AGENT_KERNEL_AGENTS: 'no/such/agents.ts' }),
      '',
      120_000,
    );

    // Assess
    expect(ran.code).not.toBe(0);
    const printed = expectFriendly(ran);
    expect(printed).toMatch(/^error: agents module not found: \S+no\/such\/agents\.ts/m);
    expect(printed).toContain('hint: ');
  }, 150_000);
});
