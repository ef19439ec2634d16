import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { agentNamesOf } from './agents-entry.js';

/**
 * `tsx lib/aws/wiring/list-agent-names.ts [entry]`: prints the names of the agents an agents entry
 * serves (the file given, relative to the working directory, else `#agents`) on one line
 * `AGENT_NAMES=<json>`. infra spawns it at synth: building the agents runs the user's code, which
 * belongs in a process of its own, never in the CDK app's.
 */
const OUTPUT_PREFIX = 'AGENT_NAMES=';

async function main(entryPath: string | undefined): Promise<void> {
  const entry = entryPath
    ? await import(pathToFileURL(resolve(entryPath)).href)
    : await import('#agents');
  process.stdout.write(`\n${OUTPUT_PREFIX}${JSON.stringify(await agentNamesOf(entry))}\n`);
}

main(process.argv[2]).then(
  // The entry may hold handles open (clients, timers): the names are out, so end here.
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
