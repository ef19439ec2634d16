import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What served-child.ts writes after each run: then the exit code, a NUL and a newline. */
export const DONE_MARKER = '\u0000served-child-done:';

const root = fileURLToPath(new URL('../../', import.meta.url));
const served = fileURLToPath(new URL('./served-child.ts', import.meta.url));

/**
 * Node's flags for a child that runs one of this repository's .ts files: ts-hooks.mjs, or tsx
 * with AK_TEST_CHILD_LOADER=tsx (to compare, or to rule the loader out when a child misbehaves).
 */
export const TS_CHILD_ARGS =
  process.env.AK_TEST_CHILD_LOADER === 'tsx'
    ? ['--import', 'tsx']
    : ['--import', new URL('./ts-hooks.mjs', import.meta.url).href];

/** The child's environment: V8's compiled code kept between children (Node ≥ 22.1). */
export function tsChildEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { NODE_COMPILE_CACHE: join(root, 'node_modules/.cache/node-compile-cache'), ...env };
}

/** How one run ended, with all it printed (`code` null when the process died of `signal`). */
export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  timeoutMs: number;
  /**
   * May run in a process that already ran a command of the same `family` (its modules loaded, a
   * run of another session behind it). Only for attempts the test kills: the attempt whose
   * outcome a test reads after a crash always runs in a process that has run nothing, as a new
   * instance would.
   */
  warm?: boolean;
  /** Runs of different families never share a process (e.g. one per framework). */
  family?: string;
}

interface Served {
  proc: ChildProcess;
  family?: string | undefined;
  stdout: string;
  stderr: string;
  exited?: { code: number | null; signal: NodeJS.Signals | null };
  onChange?: () => void;
}

/**
 * Child processes that each run `file` (TypeScript) once per command, for tests that
 * SIGKILL a child at a chosen point: a child whose run finished is kept for the next `warm` run
 * (a killed one is gone), so a kill-then-redeliver case starts one new process, not two, and the
 * killed attempt does not pay for compiling and importing its SDKs again.
 */
export function childPool(file: string, baseEnv: NodeJS.ProcessEnv = {}) {
  const idle: Served[] = [];
  const all = new Set<Served>();

  function start(): Served {
    const proc = spawn(process.execPath, [...TS_CHILD_ARGS, served, file], {
      cwd: root,
      env: tsChildEnv({ ...process.env, ...baseEnv }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const child: Served = { proc, stdout: '', stderr: '' };
    // A write to a child that just died is not an error of the test's.
    proc.stdin?.on('error', () => {});
    proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      child.stdout += chunk;
      child.onChange?.();
    });
    proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      child.stderr += chunk;
    });
    proc.on('exit', (code, signal) => {
      child.exited = { code, signal };
      all.delete(child);
      const at = idle.indexOf(child);
      if (at >= 0) idle.splice(at, 1);
      child.onChange?.();
    });
    all.add(child);
    return child;
  }

  function run(args: readonly string[], env: Record<string, string>, options: RunOptions) {
    // On unless AK_TEST_WARM_CHILDREN=0 (every attempt in a new process). The two warm kills that
    // once misbehaved were a Mastra journal race that new processes hit too (fixed in
    // base/v3-journal.ts) and a reuse across frameworks (`family` rules it out).
    const warmOn = process.env.AK_TEST_WARM_CHILDREN !== '0';
    const reuse = options.warm && warmOn;
    const at = reuse ? idle.findIndex((c) => c.family === options.family) : -1;
    const child = (at >= 0 ? idle.splice(at, 1)[0] : undefined) ?? start();
    child.family = options.family;
    child.stdout = '';
    child.stderr = '';
    return new Promise<ChildRun>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.proc.kill('SIGKILL');
        reject(new Error(`child did not finish in ${options.timeoutMs} ms\n${child.stderr}`));
      }, options.timeoutMs);
      const settle = (result: ChildRun) => {
        clearTimeout(timer);
        child.onChange = undefined;
        resolve(result);
      };
      child.onChange = () => {
        const at = child.stdout.indexOf(DONE_MARKER);
        if (at >= 0) {
          const rest = child.stdout.slice(at + DONE_MARKER.length);
          const end = rest.indexOf('\u0000');
          if (end < 0) return;
          const stdout = child.stdout.slice(0, at);
          const { stderr } = child;
          idle.push(child);
          // One spare is enough for the next kill; more would only hold memory.
          const spares = warmOn ? 1 : 0;
          while (idle.length > spares) idle.shift()?.proc.kill('SIGKILL');
          settle({ code: Number(rest.slice(0, end)), signal: null, stdout, stderr });
        } else if (child.exited) {
          settle({ ...child.exited, stdout: child.stdout, stderr: child.stderr });
        }
      };
      child.proc.stdin?.write(`${JSON.stringify({ args, env })}\n`);
    });
  }

  /** Ends every child (call in afterAll). */
  async function close(): Promise<void> {
    const exits = [...all].map(
      (child) => new Promise<void>((resolve) => child.proc.once('exit', () => resolve())),
    );
    for (const child of all) child.proc.kill('SIGKILL');
    await Promise.all(exits);
  }

  return { run, close };
}
