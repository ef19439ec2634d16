import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from './helpers/cli.js';

// The README's `npm install && npm test` on a fresh machine: a clone of this repository (its
// committed HEAD) in a temporary folder, installed from the lock file, then the test command on a
// quick subset plus the browser tests, with no chromium on PATH and no CHROMIUM_PATH: the browser
// must come from the install itself.
const work = mkdtempSync(join(tmpdir(), 'ak-fresh-clone-'));
const clone = join(work, 'agent-kernel-lambda');

afterAll(() => {
  // A clone with its node_modules is ~1 GB of small files: removed in the background, so the
  // suite does not wait minutes on a busy disk for it.
  spawn('rm', ['-rf', work], { detached: true, stdio: 'ignore' }).unref();
});

/** PATH without any folder that holds a chromium (a fresh machine has none). */
function pathWithoutChromium(): string {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter(
      (dir) =>
        !['chromium', 'chromium-browser', 'google-chrome'].some((b) => existsSync(join(dir, b))),
    )
    .join(delimiter);
}

function run(command: string, args: string[], cwd: string, budgetMs: number) {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: pathWithoutChromium(), NO_COLOR: '1' };
  delete env.CHROMIUM_PATH;
  // Nothing of this run's own vitest leaks into the child's.
  for (const key of Object.keys(env)) if (key.startsWith('VITEST')) delete env[key];
  delete env.NODE_OPTIONS;
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(command, args, { cwd, env, detached: true });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), budgetMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe('a fresh clone: install from the lock file, then npm test', () => {
  it('passes a quick subset and the browser tests without a system chromium', async () => {
    // Prepare
    const cloned = await run('git', ['clone', '--quiet', root, clone], work, 120_000);
    expect(cloned.code, cloned.out).toBe(0);

    // Act: the README's two commands (npm ci: the lock file, as CI; the npm cache may serve).
    const install = await run(
      'npm',
      ['ci', '--no-audit', '--no-fund', '--prefer-offline'],
      clone,
      480_000,
    );
    // One unit file stands for the unit project (the main run runs them all; 25 more files here
    // proved nothing new about the clone, at ~15 s of CPU), the browser test for the e2e one.
    const tests = await run(
      'npm',
      ['test', '--', 'test/unit/core/runtime.test.ts', 'test/e2e/playground.test.ts'],
      clone,
      480_000,
    );

    // Assess
    expect(install.code, install.out).toBe(0);
    expect(tests.code, tests.out).toBe(0);
    expect(tests.out).toMatch(/unit.*test\/unit\/core\/runtime\.test\.ts/);
    expect(tests.out).toMatch(/e2e.*test\/e2e\/playground\.test\.ts/);
    expect(tests.out).toMatch(/Tests\s+\d+ passed/);
    expect(tests.out).not.toMatch(/skipped|failed/);
    expect(existsSync(join(clone, 'node_modules/.cache/chromium-153.0.0/chromium'))).toBe(true);
  }, 1_000_000);
});
