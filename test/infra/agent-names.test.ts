import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listAgentNames } from '../../infra/agent-names.js';
import { PROJECT_ROOT } from '../../infra/constructs/kernel-function.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-names-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('listAgentNames (synth time)', () => {
  it("lists the default entry's agents (package.json #agents)", async () => {
    expect(await listAgentNames(undefined, PROJECT_ROOT)).toEqual(['demo']);
  });

  it('lists agents and the agents of modules from an entry file', async () => {
    // Prepare
    const entry = join(dir, 'entry.mjs');
    writeFileSync(
      entry,
      'export const createAgents = () => ({ agents: [{ name: "a" }], modules: [{ agents: [{ name: "b" }, { name: "c" }] }] });\n',
    );
    // Act / Assess
    expect(await listAgentNames(entry, PROJECT_ROOT)).toEqual(['a', 'b', 'c']);
  });

  it("runs the entry in a child process, never in the CDK app's", async () => {
    // Prepare: an entry that marks the process it runs in and talks on stdout.
    const entry = join(dir, 'marks.mjs');
    writeFileSync(
      entry,
      [
        'globalThis.__agentsEntryRan = true;',
        `console.log('AGENT_NAMES=["decoy"] and other chatter');`,
        'export const createAgents = () => ({ agents: [{ name: "x" }] });',
      ].join('\n'),
    );

    // Act
    const names = await listAgentNames(entry, PROJECT_ROOT);

    // Assess: the names came back; this process never ran the entry.
    expect(names).toEqual(['x']);
    expect((globalThis as { __agentsEntryRan?: boolean }).__agentsEntryRan).toBeUndefined();
  });

  it('warns and answers undefined when the entry cannot be built here', async () => {
    // Prepare
    const entry = join(dir, 'needs-secret.mjs');
    writeFileSync(entry, 'export const createAgents = () => { throw new Error("no API key"); };\n');
    const warnings: string[] = [];
    // Act
    const names = await listAgentNames(entry, PROJECT_ROOT, (m) => warnings.push(m));
    // Assess
    expect(names).toBeUndefined();
    expect(warnings[0]).toContain('no API key');
    expect(warnings[0]).toContain('agentNames');
  });
});
