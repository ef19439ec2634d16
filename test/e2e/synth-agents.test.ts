import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectFriendly, npmRun, userEnv } from './helpers/cli.js';

// `npm run synth` with the agents setting: the Lambda bundles carry your module, not the demo.
const FIXTURE = 'test/e2e/fixtures/parrot-agents.ts';
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('npm run synth with AGENT_KERNEL_AGENTS', () => {
  it('bundles the module for the functions, lists its agents and shows progress', async () => {
    // Prepare
    const out = await mkdtemp(join(tmpdir(), 'synth-agents-'));
    dirs.push(out);

    // Act
    const ran = await npmRun(
      // The runtime's AWS SDK (not bundled) only keeps the synth short: the alias is the same.
      ['synth', '--', '-o', out, '-c', 'bundleAwsSdk=false'],
      userEnv({ AGENT_KERNEL_AGENTS: FIXTURE }),
      '',
      150_000,
    );

    // Assess: progress lines, ws-message's names, and the fixture's code inside the bundles.
    expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(ran.stderr).toContain(`agent-kernel: listing the agents of ${FIXTURE}`);
    expect(ran.stderr).toContain(`agent-kernel: bundling WorkerFunction (#agents: ${FIXTURE})`);
    const template = await readFile(join(out, 'AgentKernel.template.json'), 'utf8');
    expect(template).toContain('"AGENT_NAMES": "parrot"');
    const bundles = (await readdir(out)).filter((name) => name.startsWith('asset.'));
    const withParrot: string[] = [];
    const withDemo: string[] = [];
    for (const dir of bundles) {
      const code = await readFile(join(out, dir, 'index.mjs'), 'utf8').catch(() => '');
      if (code.includes('Parrot heard')) withParrot.push(dir);
      if (code.includes('book_table')) withDemo.push(dir);
    }
    // invoke, http, stream and the worker build the agents (approvals routes decisions without them).
    expect(withParrot).toHaveLength(4);
    expect(withDemo).toEqual([]);
  }, 180_000);

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
