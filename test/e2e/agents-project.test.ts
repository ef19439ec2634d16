import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectFriendly,
  npmRun,
  npmStart,
  root,
  type StartedStack,
  userEnv,
} from './helpers/cli.js';
import { packKernel } from './helpers/pack.js';

// An agents module in a project of its own, as the user has one: its own package.json
// and node_modules, the kernel installed from `npm pack`, the agents module written by
// `npm run new-agent`; the clone's commands pointed at it with a path relative to the clone.
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
let work: string;
let project: string;
let entry: string;

function sh(command: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PATH, NO_COLOR: '1' },
    timeout: 300_000,
  });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ak-agents-project-'));
  project = join(work, 'my-agents');
  mkdirSync(project);
  const info = await packKernel(work);
  writeFileSync(
    join(project, 'package.json'),
    '{ "name": "my-agents", "private": true, "type": "module" }\n',
  );
  const deps = ['@openai/agents', 'zod'].map(
    (n) => `${n}@${manifest.devDependencies[n] ?? manifest.dependencies[n]}`,
  );
  sh(
    'npm',
    ['install', join(work, info.filename), ...deps, '--prefer-offline', '--no-audit', '--no-fund'],
    project,
  );
  // The scaffold keeps the project's package.json and writes agents.ts beside it.
  const scaffold = await npmRun(['new-agent', '--', project, '--framework', 'openai']);
  expect(scaffold.code, scaffold.stderr).toBe(0);
  entry = relative(root, join(project, 'agents.ts'));
}, 600_000);

afterAll(() => {
  // A project with its node_modules: removed in the background, not waited for on a busy disk.
  if (work) spawn('rm', ['-rf', work], { detached: true, stdio: 'ignore' }).unref();
});

describe('an agents project of its own, the kernel installed from npm pack', () => {
  it('has its own node_modules with the kernel and the SDK it imports', () => {
    // Assess
    const modules = readdirSync(join(project, 'node_modules'));
    expect(modules).toContain('agent-kernel-lambda');
    expect(readdirSync(join(project, 'node_modules', '@openai'))).toContain('agents');
    expect(readFileSync(join(project, 'agents.ts'), 'utf8')).toContain(
      "from 'agent-kernel-lambda/frameworks/openai'",
    );
  });

  describe('npm start -- --agents ../my-agents/agents.ts', () => {
    let stack: StartedStack;

    beforeAll(async () => {
      stack = await npmStart(['--agents', entry]);
    }, 120_000);

    afterAll(async () => {
      await stack?.stop();
    });

    it('serves its agent and runs its tool offline', async () => {
      // Act
      const res = await fetch(`${stack.http}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'assistant', input: 'what time is it?' }),
      });

      // Assess
      expect(stack.printed()).toContain(`${join(project, 'agents.ts')}: assistant`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { status: string; text: string };
      expect(body.status).toBe('completed');
      expect(body.text).toMatch(/^It is \d{4}-\d\d-\d\dT.+Z \(UTC\)\.$/);
    });
  });

  it('npm run invoke runs it on a sample event', async () => {
    // Act
    const ran = await npmRun(
      ['invoke', '--', '--agents', entry, 'events/invoke/run.json'].concat([
        '--set',
        'agent=assistant',
        '--set',
        'input=hello there',
      ]),
      userEnv(),
      '',
      120_000,
    );

    // Assess
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('"text": "You said: hello there"');
  }, 150_000);

  it('npm run synth bundles it, its agents listed for ws-message', async () => {
    // Prepare
    const out = mkdtempSync(join(work, 'cdk-out-'));

    // Act
    const ran = await npmRun(
      ['synth', '--', '-o', out, '-c', 'bundleAwsSdk=false'],
      userEnv({ AGENT_KERNEL_AGENTS: entry }),
      '',
      300_000,
    );

    // Assess
    expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(ran.stderr).not.toContain('could not list the agents');
    // Progress lines while it lists the agents and bundles each function with them.
    expect(ran.stderr).toContain(`agent-kernel: listing the agents of ${entry}`);
    expect(ran.stderr).toContain(`agent-kernel: bundling WorkerFunction (#agents: ${entry})`);
    const template = readFileSync(join(out, 'AgentKernel.template.json'), 'utf8');
    expect(template).toContain('"AGENT_NAMES": "assistant"');
    const bundles = readdirSync(out).filter((name) => name.startsWith('asset.'));
    const code = (dir: string) => readFileSync(join(out, dir, 'index.mjs'), 'utf8');
    // invoke, http, stream and the worker build the agents (approvals routes decisions without
    // them); the demo's agents are in none.
    expect(bundles.filter((dir) => code(dir).includes('You said: '))).toHaveLength(4);
    expect(bundles.filter((dir) => code(dir).includes('book_table'))).toEqual([]);
  }, 330_000);

  it('a syntax error in the module shows its file, line and column', async () => {
    // Prepare
    const broken = join(project, 'broken.ts');
    writeFileSync(broken, "export const agents = [\n  { name: 'x' ,, },\n];\n");

    // Act
    const ran = await npmRun(['start', '--', '--agents', relative(root, broken)]);

    // Assess
    expect(ran.code).not.toBe(0);
    const printed = expectFriendly(ran);
    expect(printed).toContain(`error: syntax error in ${broken}:2:15: Expected identifier`);
    expect(printed).toContain(`hint: fix line 2, column 15 of ${broken}`);
  }, 120_000);

  it('a package neither project has is named with the importing file and the install command', async () => {
    // Prepare
    const missing = join(project, 'missing.ts');
    writeFileSync(
      missing,
      "import { agent } from 'no-such-agent-sdk';\nexport const agents = [agent];\n",
    );

    // Act
    const ran = await npmRun(['start', '--', '--agents', missing]);

    // Assess
    expect(ran.code).not.toBe(0);
    expect(expectFriendly(ran)).toContain(
      `error: Cannot find package 'no-such-agent-sdk' imported from ${missing}: install it in ` +
        `that project (cd ${project} && npm install no-such-agent-sdk).`,
    );
  }, 120_000);
});
