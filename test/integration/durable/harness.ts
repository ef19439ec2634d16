import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
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

/** Runs a TypeScript file in its own Node process (tsx) and waits for it to exit or die. */
export function spawnTsx(
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Spawned> {
  const proc = spawn(process.execPath, ['--import', tsx, file, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
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

/** Runs one worker instance (worker-child.ts) with `env` and waits for it to exit or die. */
export async function runChild(
  env: Record<string, string>,
  timeoutMs = 25_000,
): Promise<ChildExit> {
  const { code, signal, stdout, stderr } = await spawnTsx(child, [], env, timeoutMs);
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  return {
    code,
    signal,
    ...(line ? { result: JSON.parse(line.slice('RESULT '.length)) } : {}),
    stderr,
  };
}

/** The effect file's lines (the tool's real side effects). */
export function effects(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}
