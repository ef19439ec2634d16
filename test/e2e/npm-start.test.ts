import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { untilRunEnds } from './helpers/cli.js';

// The README's commands as a user runs them: `npm start` in one process, then `npm run chat`,
// `npm run approve` and plain HTTP / WebSocket clients against what it printed.
const root = fileURLToPath(new URL('../../', import.meta.url));

function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  // A fresh machine: no model key, no table, no stack to connect to.
  for (const key of [
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'AGENT_KERNEL_WS_URL',
    'AGENT_KERNEL_TOKEN',
    'TABLE_NAME',
    'DYNAMODB_ENDPOINT',
    'AGENT_NAMES',
  ]) {
    delete env[key];
  }
  return env;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run <args>` to its end, `input` on stdin. */
function npmRun(args: string[], env: NodeJS.ProcessEnv, input = '', budgetMs = 90_000) {
  const child = spawn('npm', ['run', '--silent', ...args], { cwd: root, env, detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin?.end(input);
  return new Promise<Run>((resolve, reject) => {
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

/** npm starts tsx which starts node: signal the whole group, as Ctrl+C in a terminal does. */
function stopGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

let start: ChildProcess;
let startExit: Promise<number | null>;
let printed = '';
let http: string;
let wsUrl: string;
let approvalsQueue: string;
let token: string;

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
  http = /HTTP API\s+(\S+)/.exec(printed)?.[1] as string;
  wsUrl = /WebSocket API\s+(\S+)\?token=/.exec(printed)?.[1] as string;
  approvalsQueue = /approvals\s+(\S+)/.exec(printed)?.[1] as string;
  token = /^TOKEN=(\S+)$/m.exec(printed)?.[1] as string;
}, 90_000);

afterAll(async () => {
  if (start && start.exitCode === null) {
    stopGroup(start, 'SIGTERM');
    await Promise.race([startExit, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    stopGroup(start, 'SIGKILL');
  }
});

describe('npm start (the README command), used as a user would', () => {
  it('prints its URLs and a development token, and the HTTP API answers with it', async () => {
    // Assess
    expect(printed).toContain('Agent Kernel local stack (offline: scripted model server)');
    expect(http).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const agents = await fetch(`${http}/agents`, { headers: { authorization: `Bearer ${token}` } });
    expect(agents.status).toBe(200);
    expect(await agents.json()).toMatchObject({
      agents: [expect.objectContaining({ name: 'demo' })],
    });
    expect((await fetch(`${http}/agents`)).status).toBe(401);
    expect((await fetch(`${http}/health`)).status).toBe(200);
  });

  it('npm run chat connects to it, streams a reply and resumes an approved booking', async () => {
    // Act
    const chat = await npmRun(
      ['chat'],
      userEnv({ AGENT_KERNEL_WS_URL: wsUrl, AGENT_KERNEL_TOKEN: token }),
      'weather in Paris?\nbook a table for 2 at 8pm\ny\n/exit\n',
    );

    // Assess
    expect(chat.code, `${chat.stdout}\n${chat.stderr}`).toBe(0);
    expect(chat.stdout).toMatch(/^Demo data: in Paris it is -?\d+°C and [a-z ]+\.$/m);
    expect(chat.stdout).toMatch(/^Booked a table for 2 at 8pm \(confirmation T-\d{4}\)\./m);
  }, 120_000);

  it('npm run approve finishes a run paused on the WebSocket, through the approvals queue', async () => {
    // Prepare: a run that pauses for the booking's approval.
    const ws = new WebSocket(`${wsUrl}?token=${token}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const paused = untilRunEnds(ws);
    ws.send(
      JSON.stringify({
        action: 'run',
        requestId: 'e2e-1',
        agent: 'demo',
        sessionId: 'e2e-session',
        input: 'book a table for 4 at 7pm',
      }),
    );
    const pause = (await paused).flatMap((m) => m.events ?? []).at(-1);
    expect(pause).toMatchObject({ type: 'run-paused' });
    const callId = pause.interruptions[0].id as string;
    const finished = untilRunEnds(ws);

    // Act: the one-line command the README and `npm start` print.
    const approve = await npmRun(
      ['approve', '--', approvalsQueue, 'e2e-session', pause.runId, callId, 'approved'],
      userEnv(),
    );

    // Assess
    expect(approve.code, `${approve.stdout}\n${approve.stderr}`).toBe(0);
    const end = (await finished).flatMap((m) => m.events ?? []).at(-1);
    expect(end).toMatchObject({ type: 'run-finished', runId: pause.runId });
    expect(end.reply.text).toMatch(/^Booked a table for 4 at 7pm/);
    ws.close();
  }, 120_000);

  it('stops cleanly on SIGTERM (Ctrl+C)', async () => {
    // Act
    stopGroup(start, 'SIGTERM');
    const code = await Promise.race([
      startExit,
      new Promise((resolve) => setTimeout(() => resolve('timeout'), 20_000)),
    ]);

    // Assess: npm reports the signal or the stack's own exit 0, never a hang.
    expect(code).not.toBe('timeout');
  }, 30_000);
});
