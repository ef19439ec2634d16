import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { agentNamesOf } from '../lib/aws/agents.js';

/**
 * The names of the agents the functions will serve, from the agents entry (the `agentsEntry`
 * context, else package.json's `#agents`), for ws-message's AGENT_NAMES. Building the agents runs
 * the entry's code at synth time, offline: an entry that cannot be built here (it needs a secret
 * or the network) only costs the early check, with a warning, never the synth.
 */
export async function listAgentNames(
  agentsEntry: string | undefined,
  projectRoot: string,
  warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
): Promise<string[] | undefined> {
  try {
    const entry = agentsEntry
      ? await import(pathToFileURL(resolve(projectRoot, agentsEntry)).href)
      : await import('#agents');
    return await agentNamesOf(entry);
  } catch (err) {
    warn(
      `agent-kernel: could not list the agents of ${agentsEntry ?? '#agents'} (${(err as Error).message}); ` +
        'ws-message will let any agent name through and the worker will refuse unknown ones. ' +
        'Set the agentNames context to check them early.',
    );
    return undefined;
  }
}
