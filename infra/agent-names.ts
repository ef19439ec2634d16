import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The lib script that builds the agents, run in a child process (never imported here). */
const LISTER = 'lib/aws/wiring/list-agent-names.ts';
const REGISTER = 'lib/local/agents-imports-register.ts';
const PREFIX = 'AGENT_NAMES=';
const TIMEOUT_MS = 60_000;

/**
 * The names of the agents the functions will serve, from the agents entry (the `agentsEntry`
 * context, else package.json's `#agents`), for ws-message's AGENT_NAMES. Building the agents runs
 * the entry's code, so infra never does it itself: it spawns `tsx` of a tiny lib script and reads
 * the names it prints. An entry that cannot be built here (it needs a secret or the network) only
 * costs the early check, with a warning, never the synth; the `agentNames` context skips this.
 */
export async function listAgentNames(
  agentsEntry: string | undefined,
  projectRoot: string,
  warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
): Promise<string[] | undefined> {
  // Building the agents can take many seconds: say what is going on.
  if (process.env.CDK_OUTDIR)
    warn(`agent-kernel: listing the agents of ${agentsEntry ?? '#agents'}…`);
  try {
    // The agents module's imports resolve as in the local commands (its own project first).
    const args = ['--import', 'tsx', '--import', resolve(projectRoot, REGISTER)];
    args.push(resolve(projectRoot, LISTER));
    if (agentsEntry) args.push(resolve(projectRoot, agentsEntry));
    const { stdout } = await run(process.execPath, args, {
      cwd: projectRoot,
      timeout: TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
    return namesIn(stdout);
  } catch (err) {
    warn(
      `agent-kernel: could not list the agents of ${agentsEntry ?? '#agents'} (${reasonOf(err)}); ` +
        'ws-message will let any agent name through and the worker will refuse unknown ones. ' +
        'Set the agentNames context to check them early.',
    );
    return undefined;
  }
}

/** The last `AGENT_NAMES=` line: the entry's own output may come before it. */
function namesIn(stdout: string): string[] {
  const line = stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(PREFIX));
  if (!line) throw new Error('the lister printed no names');
  const names: unknown = JSON.parse(line.slice(PREFIX.length));
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
    throw new Error('the lister printed something other than names');
  }
  return names;
}

/** The child's own words (its stderr's last line) rather than "Command failed: …". */
function reasonOf(err: unknown): string {
  const stderr = (err as { stderr?: unknown }).stderr;
  const last = typeof stderr === 'string' ? stderr.trim().split('\n').at(-1) : undefined;
  return last || (err instanceof Error ? err.message : String(err));
}
