import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `npm run smoke` as CI runs it: against `npm start` in another process, with what that printed,
// and with `--local` alone (the stack in the smoke's own process, which can reach invoke).
const root = fileURLToPath(new URL('../../', import.meta.url));
const STEPS = [
  'connect (WebSocket)',
  'run and stream',
  'pause (tool approval)',
  'approve over HTTP',
  'approve over the approvals queue',
  'stream (SSE)',
  'AG-UI (SSE)',
  'playground page',
  'invoke (direct)',
];

function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TABLE_NAME', 'DYNAMODB_ENDPOINT']) {
    delete env[key];
  }
  return env;
}

/** npm starts tsx which starts node: signal the whole group, as Ctrl+C in a terminal does. */
function stopGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function npmRun(args: string[], budgetMs = 150_000) {
  const child = spawn('npm', ['run', '--silent', ...args], {
    cwd: root,
    env: userEnv(),
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      stopGroup(child, 'SIGKILL');
      reject(new Error(`npm run ${args[0]} did not end\n${stdout}\n${stderr}`));
    }, budgetMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Each step's report line: its status and detail. */
function stepsOf(stdout: string): Map<string, { status: string; detail: string }> {
  const steps = new Map<string, { status: string; detail: string }>();
  for (const name of STEPS) {
    const escaped = name.replace(/[()]/g, '\\$&');
    const line = new RegExp(`^(PASS|FAIL|SKIP)\\s+${escaped}\\s+\\d+ ms\\s+(.*)$`, 'm').exec(
      stdout,
    );
    if (line) steps.set(name, { status: line[1] as string, detail: line[2] as string });
  }
  return steps;
}

let start: ChildProcess;
let startExit: Promise<number | null>;
let printed = '';
const flags: string[] = [];

beforeAll(async () => {
  start = spawn('npm', ['start', '--silent'], {
    cwd: root,
    env: userEnv({ PORT: '0' }),
    detached: true,
  });
  startExit = new Promise((resolve) => start.once('close', resolve));
  start.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    printed += chunk;
  });
  start.stderr?.resume();
  const deadline = Date.now() + 60_000;
  while (!/^TOKEN=\S+$/m.test(printed)) {
    if (Date.now() > deadline) throw new Error(`npm start printed no token:\n${printed}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  flags.push(
    '--http',
    /HTTP API\s+(\S+)/.exec(printed)?.[1] as string,
    '--ws',
    /WebSocket API\s+(\S+)\?token=/.exec(printed)?.[1] as string,
    '--approvals',
    /approvals\s+(\S+)/.exec(printed)?.[1] as string,
    '--stream',
    /Stream URL\s+(\S+)/.exec(printed)?.[1] as string,
  );
}, 90_000);

afterAll(async () => {
  if (start && start.exitCode === null) {
    stopGroup(start, 'SIGTERM');
    await Promise.race([startExit, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    stopGroup(start, 'SIGKILL');
  }
});

describe('npm run smoke', () => {
  it('passes every step against npm start; invoke is skipped with its reason', async () => {
    // Prepare
    const token = /^TOKEN=(\S+)$/m.exec(printed)?.[1] as string;

    // Act
    const smoke = await npmRun(['smoke', '--', '--local', ...flags, '--token', token]);

    // Assess
    expect(smoke.code, `${smoke.stdout}\n${smoke.stderr}`).toBe(0);
    const steps = stepsOf(smoke.stdout);
    for (const name of STEPS.slice(0, -1)) expect(steps.get(name)?.status, name).toBe('PASS');
    expect(steps.get('invoke (direct)')).toMatchObject({
      status: 'SKIP',
      detail: expect.stringContaining('no Lambda Invoke endpoint'),
    });
    expect(steps.get('run and stream')?.detail).toMatch(
      /[1-9]\d* text deltas, [1-9]\d* tool events/,
    );
    expect(smoke.stdout).toMatch(/^smoke: all 8 steps passed, 1 skipped$/m);
  }, 180_000);

  it('fails, exit 1, with a token the stack refuses', async () => {
    // Act
    const smoke = await npmRun([
      'smoke',
      '--',
      '--local',
      ...flags,
      '--token',
      'a.b.c',
      '--principal',
      'x',
    ]);

    // Assess
    expect(smoke.code, `${smoke.stdout}\n${smoke.stderr}`).toBe(1);
    expect(stepsOf(smoke.stdout).get('connect (WebSocket)')?.status).toBe('FAIL');
    expect(smoke.stdout).toMatch(/^smoke: 7 of 9 steps FAILED$/m);
    // The page needs no token; the stream URL refuses the bad one.
    expect(stepsOf(smoke.stdout).get('playground page')?.status).toBe('PASS');
    expect(stepsOf(smoke.stdout).get('stream (SSE)')?.detail).toMatch(/401/);
  }, 180_000);

  it('with --local alone starts the stack in its own process and passes every step, invoke too', async () => {
    // Act
    const smoke = await npmRun(['smoke', '--', '--local']);

    // Assess
    expect(smoke.code, `${smoke.stdout}\n${smoke.stderr}`).toBe(0);
    const steps = stepsOf(smoke.stdout);
    for (const name of STEPS) expect(steps.get(name)?.status, name).toBe('PASS');
  }, 180_000);
});
