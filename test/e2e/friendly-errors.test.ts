import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectFriendly, npmRun, type Ran, root, userEnv } from './helpers/cli.js';

// Each user-facing command fails with `error: …` and `hint: …`, an exit code, and no stack trace.
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A port nothing listens on (bound, read, released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function friendly(ran: Ran, error: RegExp): void {
  expect(ran.code, `${ran.stdout}\n${ran.stderr}`).not.toBe(0);
  const printed = expectFriendly(ran);
  expect(printed).toMatch(error);
  expect(printed).toMatch(/^hint: \S/m);
}

describe.concurrent('friendly errors: one line, a hint, no stack trace', () => {
  it('npm start with an --agents module that is not there', async () => {
    const ran = await npmRun(
      ['start', '--', '--agents', './no-such-agents.ts'],
      userEnv({ PORT: '0' }),
    );
    friendly(ran, /^error: agents module not found: \S+\/no-such-agents\.ts$/m);
  }, 90_000);

  it('npm start with AGENT_KERNEL_AGENTS naming a module that exports no agents', async () => {
    const ran = await npmRun(
      ['start'],
      userEnv({ PORT: '0', AGENT_KERNEL_AGENTS: 'test/e2e/fixtures/no-agents.ts' }),
    );
    friendly(ran, /^error: The agents entry must export .* \(agents-entry-error\)$/m);
    expect(ran.stderr).toContain('docs/agents.md');
  }, 90_000);

  it('npm run invoke with an event file that is not there', async () => {
    const ran = await npmRun(['invoke', '--', 'events/invoke/no-such.json']);
    friendly(ran, /^error: event file not found: \S+\/events\/invoke\/no-such\.json$/m);
  }, 90_000);

  it('npm run invoke with TABLE_NAME/DYNAMODB_ENDPOINT pointing at no emulator', async () => {
    const port = await closedPort();
    const ran = await npmRun(
      ['invoke', '--', 'events/invoke/run.json'],
      userEnv({ TABLE_NAME: 'agent-kernel-local', DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}` }),
    );
    friendly(
      ran,
      new RegExp(`^error: no DynamoDB answers at http://127\\.0\\.0\\.1:${port} `, 'm'),
    );
  }, 90_000);

  it('npm run approve to an approvals queue nothing serves', async () => {
    const port = await closedPort();
    const queue = `http://127.0.0.1:${port}/123456789012/approvals`;
    const ran = await npmRun(['approve', '--', queue, 's1', 'r1', 'call_1']);
    friendly(
      ran,
      /^error: nothing answers at http:\/\/127\.0\.0\.1:\d+ \(the approvals queue's SQS\)$/m,
    );
  }, 90_000);

  it('npm run integration-map with no arguments prints its usage and writes nothing', async () => {
    const ran = await npmRun(['integration-map']);
    expect(ran.code).toBe(2);
    expect(expectFriendly(ran)).toMatch(/^usage: npm run integration-map -- <appRoot> <outFile>$/m);
    expect(existsSync(join(root, 'integration-map.js'))).toBe(false);
  }, 90_000);

  it('npm test without Java stops at once with one message', async () => {
    // Prepare: a PATH with node and nothing else (no java).
    const bin = await mkdtemp(join(tmpdir(), 'no-java-'));
    dirs.push(bin);
    await symlink(process.execPath, join(bin, 'node'));
    const vitest = join(root, 'node_modules/vitest/vitest.mjs');

    // Act: the integration project, whose global setup starts DynamoDB Local.
    const child = spawn(
      process.execPath,
      [vitest, 'run', '--project', 'integration', 'test/integration/tools/discovery.test.ts'],
      { cwd: root, env: { ...userEnv(), PATH: bin } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));

    // Assess
    friendly({ code, stdout, stderr }, /^error: Java not found: .*needs Java 17\+\.$/m);
  }, 90_000);
});

// Every command that takes flags parses them with node:util parseArgs (lib/local/cli.ts).
describe.concurrent('flags: --help and an unknown flag', () => {
  const commands = [
    ['start', /^usage: npm start /m],
    ['invoke', /^usage: npm run invoke -- /m],
    ['approve', /^usage: npm run approve -- /m],
    ['smoke', /^usage: npm run smoke -- /m],
    ['new-agent', /^usage: npm run new-agent -- /m],
  ] as const;

  it.each(commands)(
    'npm run %s -- --help prints its usage and exits 0',
    async (name, usage) => {
      const ran = await npmRun([name, '--', '--help'], userEnv({ PORT: '0' }));
      expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(0);
      expect(ran.stdout).toMatch(usage);
    },
    60_000,
  );

  it.each(commands)(
    'npm run %s -- --bogus fails with exit 2, the flag named, and the usage',
    async (name, usage) => {
      const ran = await npmRun([name, '--', '--bogus', 'x'], userEnv({ PORT: '0' }));
      expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(2);
      const printed = expectFriendly(ran);
      expect(printed).toMatch(/^error: unknown option '--bogus' \(invalid-argument\)$/m);
      expect(printed).toMatch(new RegExp(`^hint: ${usage.source.slice(1)}`, 'm'));
    },
    60_000,
  );
});
