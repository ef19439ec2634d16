import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectFriendly, npmRun, root } from './helpers/cli.js';

// `npm run new-agent -- <dir> [--framework …]`: a project that answers the first time, before
// any `npm install` in it (its imports come from the clone's node_modules until it has its own).
const work = mkdtempSync(join(tmpdir(), 'ak-new-agent-'));

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('npm run new-agent', () => {
  for (const framework of ['openai', 'ai-sdk', 'langgraph']) {
    it(`writes a ${framework} project whose agent calls its tool offline at once`, async () => {
      // Prepare
      const dir = join(work, `my-${framework}-agents`);

      // Act
      const made = await npmRun(['new-agent', '--', dir, '--framework', framework]);
      const entry = relative(root, join(dir, 'agents.ts'));
      const ran = await npmRun(
        ['invoke', '--', '--agents', entry, 'events/invoke/run.json'].concat([
          '--set',
          'agent=assistant',
          '--set',
          'input=what time is it?',
        ]),
      );

      // Assess
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toContain(`next:  npm start -- --agents ${entry}`);
      expect(existsSync(join(dir, 'node_modules'))).toBe(false);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      expect(manifest.dependencies['agent-kernel-lambda']).toBe(`file:${relative(dir, root)}`);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stdout).toMatch(/"text": "It is \d{4}-\d\d-\d\dT[^"]+Z \(UTC\)\."/);
    }, 120_000);
  }

  it('refuses to overwrite an agents module, and an unknown framework, in one line', async () => {
    // Prepare
    const dir = join(work, 'my-openai-agents');

    // Act
    const again = await npmRun(['new-agent', '--', dir]);
    const unknown = await npmRun(['new-agent', '--', join(work, 'x'), '--framework', 'crewai']);

    // Assess
    expect(again.code).toBe(1);
    expect(expectFriendly(again)).toContain(`error: ${join(dir, 'agents.ts')} exists`);
    expect(unknown.code).toBe(1);
    expect(expectFriendly(unknown)).toContain(
      'error: unknown framework: crewai\nhint: usage: npm run new-agent',
    );
    expect(existsSync(join(work, 'x'))).toBe(false);
  }, 60_000);
});
