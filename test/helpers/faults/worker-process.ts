import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Config } from '../../../lib/aws/wiring/config.js';

/**
 * A worker Lambda in a child process, polling the run queue: a test can SIGKILL it at an exact
 * point of a job (hold a DynamoDB request with the fault proxy's `hold`, wait for `held`, then
 * `kill()`) and let another worker (in process, or a second child) take the redelivery.
 *
 * Usage:
 *   const child = startWorkerProcess({
 *     agentsModule: fileURLToPath(new URL('./writer-agents.ts', import.meta.url)),
 *     env: workerEnvOf(stack.deployed.config, { DYNAMODB_ENDPOINT: proxy.url }),
 *   });
 *   await child.ready;
 *   … await proxy.held; child.kill(); await child.exited; …
 *
 * The agents module is an ordinary agents entry (what `#agents` resolves to): it reads whatever
 * it needs (model URL, files for side effects) from the environment given here.
 */
export interface WorkerProcess {
  /** Resolves once the child polls the queue. */
  readonly ready: Promise<void>;
  /** Every JSON line the child wrote, in order (`ready`, `batch`, `batch-done`, `poll-error`). */
  readonly lines: Record<string, unknown>[];
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** SIGKILL: the process dies where it is, as a Lambda at its timeout or a crashed host. */
  kill(): void;
  /** What the child wrote on stderr (for a failing test's message). */
  stderr(): string;
}

export interface WorkerProcessOptions {
  /** Absolute path of the agents module (TypeScript is fine: the child runs under tsx). */
  agentsModule: string;
  /** The worker's environment: config variables (see `workerEnvOf`) and the module's own. */
  env: Record<string, string>;
  /** What `getRemainingTimeInMillis` starts at for each invocation (default 15 minutes). */
  remainingMs?: number;
}

const CHILD = new URL('./worker-child.ts', import.meta.url).pathname;

export function startWorkerProcess(options: WorkerProcessOptions): WorkerProcess {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: {
      PATH: process.env.PATH ?? '',
      ...options.env,
      AGENTS_MODULE: options.agentsModule,
      WORKER_REMAINING_MS: String(options.remainingMs ?? 15 * 60_000),
      // The child's own logs are not what the test reads.
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return;
      }
      lines.push(line);
      if (line.type === 'ready') resolve();
    });
    exited.then((code) => reject(new Error(`worker process exited (${code}): ${err}`)));
  });
  return {
    ready,
    lines,
    exited,
    kill: () => {
      child.kill('SIGKILL');
    },
    stderr: () => err,
  };
}

/** The config variables of a deployment, as a worker process's environment. */
export function workerEnvOf(
  config: Config,
  overrides: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(config)) {
    if (typeof value === 'string' || typeof value === 'number') env[key] = String(value);
  }
  return { ...env, ...overrides };
}
