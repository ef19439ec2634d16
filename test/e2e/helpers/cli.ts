import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

/** The repository root, where a user runs the npm commands. */
export const root = fileURLToPath(new URL('../../../', import.meta.url));

/** A fresh machine's environment: no model key, no table, no stack to connect to. */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const key of [
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'GEMINI_BASE_URL',
    'BEDROCK_MODEL_ID',
    'BEDROCK_ENDPOINT',
    'AGENT_KERNEL_WS_URL',
    'AGENT_KERNEL_TOKEN',
    'AGENT_KERNEL_AGENTS',
    'AGENT_KERNEL_DEBUG',
    'TABLE_NAME',
    'DYNAMODB_ENDPOINT',
    'AGENT_NAMES',
  ]) {
    delete env[key];
  }
  return { ...env, ...extra };
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run <args>` (or `npm start` when args[0] is 'start') to its end, `input` on stdin. */
export function npmRun(
  args: string[],
  env: NodeJS.ProcessEnv = userEnv(),
  input = '',
  budgetMs = 90_000,
): Promise<Ran> {
  const child = spawnNpm(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin?.end(input);
  return new Promise<Ran>((resolve, reject) => {
    const timer = setTimeout(() => {
      stopGroup(child, 'SIGKILL');
      reject(new Error(`npm ${args.join(' ')} did not end\n${stdout}\n${stderr}`));
    }, budgetMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** npm in a process group of its own, so the test can stop it and its children as Ctrl+C does. */
export function spawnNpm(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const npmArgs =
    args[0] === 'start' ? ['start', '--silent', ...args.slice(1)] : ['run', '--silent', ...args];
  return spawn('npm', npmArgs, { cwd: root, env, detached: true });
}

export function stopGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** What `npm start` printed: its URLs and the development token. */
export interface StartedStack {
  child: ChildProcess;
  printed: () => string;
  http: string;
  wsUrl: string;
  approvalsQueue: string;
  token: string;
  stop(): Promise<void>;
}

/** `npm start -- <args>` until it prints its token. */
export async function npmStart(args: string[] = [], extra: Record<string, string> = {}) {
  const child = spawnNpm(
    ['start', ...(args.length ? ['--', ...args] : [])],
    userEnv({ PORT: '0', ...extra }),
  );
  const exited = new Promise((resolve) => child.once('close', resolve));
  let printed = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    printed += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    printed += chunk;
  });
  const deadline = Date.now() + 60_000;
  while (!/^TOKEN=\S+$/m.test(printed)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      stopGroup(child, 'SIGKILL');
      throw new Error(`npm start printed no token:\n${printed}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stop = async () => {
    if (child.exitCode !== null) return;
    stopGroup(child, 'SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    stopGroup(child, 'SIGKILL');
  };
  return {
    child,
    printed: () => printed,
    http: /HTTP API\s+(\S+)/.exec(printed)?.[1] as string,
    wsUrl: /WebSocket API\s+(\S+)\?token=/.exec(printed)?.[1] as string,
    approvalsQueue: /approvals\s+(\S+)/.exec(printed)?.[1] as string,
    token: /^TOKEN=(\S+)$/m.exec(printed)?.[1] as string,
    stop,
  } satisfies StartedStack;
}

/** Every message up to the run's end (finished, paused, error) on an open socket. */
export function untilRunEnds(ws: WebSocket, budgetMs = 30_000): Promise<any[]> {
  const seen: any[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(JSON.stringify(seen))), budgetMs);
    ws.on('message', (data) => {
      const message = JSON.parse(String(data));
      seen.push(message);
      const events: { type: string }[] = message.events ?? [];
      if (
        message.type === 'error' ||
        events.some((e) => ['run-finished', 'run-error', 'run-paused'].includes(e.type))
      ) {
        clearTimeout(timer);
        ws.removeAllListeners('message');
        resolve(seen);
      }
    });
  });
}

export async function openSocket(wsUrl: string, token: string): Promise<WebSocket> {
  const ws = new WebSocket(`${wsUrl}?token=${token}`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return ws;
}

/** The friendly-error contract: one `error:` line, a `hint:` line, no stack frame. */
export function expectFriendly(ran: Ran): string {
  const text = `${ran.stdout}\n${ran.stderr}`;
  if (/^\s+at /m.test(text)) throw new Error(`a stack trace was printed:\n${text}`);
  return text;
}
