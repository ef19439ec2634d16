/**
 * The one setting that picks the agents the local commands serve: `--agents <path>` or
 * AGENT_KERNEL_AGENTS=<path>; neither: package.json's `#agents` (the demo). The chosen module
 * replaces `#agents` for every import in this process (functions/, the local stack), as the
 * esbuild alias does in the Lambda bundles (infra/bundling.ts reads the same variable).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { registerAgentsImports } from './agents-imports.js';
import { fileMissing } from './cli.js';

export const AGENTS_ENV = 'AGENT_KERNEL_AGENTS';

const FLAG = '--agents';

/** The arguments without `--agents <path>` / `--agents=<path>`, and the path if given. */
export function takeAgentsFlag(argv: readonly string[]): { rest: string[]; path?: string } {
  const rest: string[] = [];
  let path: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === FLAG) {
      path = argv[++i] ?? '';
    } else if (arg.startsWith(`${FLAG}=`)) {
      path = arg.slice(FLAG.length + 1);
    } else {
      rest.push(arg);
    }
  }
  return path === undefined ? { rest } : { rest, path };
}

/**
 * Applies the setting (flag first, then the environment): checks the file exists, makes `#agents`
 * resolve to it and exports its absolute path in AGENT_KERNEL_AGENTS for child processes.
 * Answers the remaining arguments and the chosen path (absent: the demo).
 */
export function useAgentsEntry(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { rest: string[]; entry?: string } {
  const { rest, path } = takeAgentsFlag(argv);
  const chosen = path ?? env[AGENTS_ENV];
  if (chosen === undefined || chosen === '') return { rest };
  const entry = resolve(chosen);
  if (!existsSync(entry)) {
    throw fileMissing(
      'agents module',
      entry,
      `${FLAG} (or ${AGENTS_ENV}) names a .ts or .js file exporting createAgents() or agents; ` +
        'see docs/agents.md. Leave it out to run the demo.',
    );
  }
  env[AGENTS_ENV] = entry;
  aliasAgents(entry);
  return { rest, entry };
}

let aliased: string | undefined;

function aliasAgents(entry: string): void {
  if (aliased === entry) return;
  aliased = entry;
  registerAgentsImports(entry);
}
