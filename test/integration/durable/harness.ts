import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { childPool, TS_CHILD_ARGS, tsChildEnv } from '../../helpers/child-pool.js';
import { childSlots } from '../../helpers/child-slots.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const child = fileURLToPath(new URL('./worker-child.ts', import.meta.url));

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The child's `RESULT` line, parsed; undefined when it was killed first. */
  result?: { ok: boolean; reply?: any; code?: string; message?: string };
  stderr: string;
}

/** How a child process ended, with all it printed. */
export interface Spawned {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript file in its own Node process and waits for it to exit or die. */
export function spawnTsx(
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Spawned> {
  const proc = spawn(process.execPath, [...TS_CHILD_ARGS, file, ...args], {
    cwd: root,
    env: tsChildEnv({ ...process.env, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`child did not exit in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Worker instances (worker-child.ts) for one test file, each run waited for until it finishes or
 * dies. An attempt with `KILL` set may run in a process an earlier attempt finished in (its SDKs
 * loaded; see childPool); every other attempt runs in a new process. At most two run at once
 * across the file's concurrent cases (childSlots); `together` starts its runs all at once.
 */
export function useWorkerChildren() {
  const pool = childPool(child);
  const withSlots = childSlots(2);
  afterAll(() => pool.close());
  async function runOne(env: Record<string, string>, timeoutMs: number): Promise<ChildExit> {
    const warm = Boolean(env.KILL);
    const { code, signal, stdout, stderr } = await pool.run([], env, { timeoutMs, warm });
    const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
    return {
      code,
      signal,
      ...(line ? { result: JSON.parse(line.slice('RESULT '.length)) } : {}),
      stderr,
    };
  }
  return {
    run: (env: Record<string, string>, timeoutMs = 60_000) =>
      withSlots(1, () => runOne(env, timeoutMs)),
    together: (envs: Record<string, string>[], timeoutMs = 60_000) =>
      withSlots(envs.length, () => Promise.all(envs.map((env) => runOne(env, timeoutMs)))),
  };
}

/** The effect file's lines (the tool's real side effects). */
export function effects(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}
