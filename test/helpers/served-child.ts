/**
 * The child side of `childPool` (child-pool.ts): one Node process that runs a TypeScript file
 * (argv[2]) once per command read from stdin, each time as a fresh module evaluation with that
 * command's argv and environment, so what the file imports (a framework SDK, the AWS SDK, lib/)
 * is compiled and loaded once per process rather than once per attempt.
 *
 * A command is one JSON line `{ args, env }`. After each run the child writes DONE_MARKER, the
 * run's exit code and a NUL on stdout, after whatever the file printed; a file that kills its own
 * process (SIGKILL) never gets there. The environment is put back to the process's own before every command.
 */
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { DONE_MARKER } from './child-pool.js';

const file = process.argv[2] as string;
const own = { ...process.env };
let runs = 0;

function setEnv(env: Record<string, string>): void {
  for (const key of Object.keys(process.env)) if (!(key in own)) delete process.env[key];
  Object.assign(process.env, own, env);
}

async function serve(line: string): Promise<void> {
  const { args, env } = JSON.parse(line) as { args: string[]; env: Record<string, string> };
  setEnv({ ...env, AK_SERVED_CHILD: '1' });
  process.argv = [process.argv[0] as string, file, ...args];
  runs += 1;
  let code = 0;
  try {
    // A new URL is a new module instance: its top level runs again; its imports stay loaded.
    await import(`${pathToFileURL(file).href}?run=${runs}`);
  } catch (err) {
    process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
    code = 1;
  }
  process.stdout.write(`${DONE_MARKER}${code}\u0000\n`);
}

// One command at a time: the pool sends the next only after this one's marker.
const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(() => serve(line));
});
lines.on('close', () => {
  void queue.then(() => process.exit(0));
});
