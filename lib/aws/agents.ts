import type { Agent } from '../core/agent.js';
import type { Module } from '../core/module.js';
import { AgentsEntryError } from './errors.js';

/**
 * What a user's agents entry module exports (`#agents` in package.json "imports", replaced by the
 * deployment's own file): agents and modules, or a function that builds them once per cold start.
 */
export interface AgentsDefinition {
  agents?: readonly Agent<any>[];
  modules?: readonly Module<any>[];
}

export type AgentsEntry =
  | AgentsDefinition
  | { default: AgentsDefinition | (() => AgentsDefinition | Promise<AgentsDefinition>) }
  | { createAgents: () => AgentsDefinition | Promise<AgentsDefinition> };

export async function resolveAgents(entry: unknown): Promise<AgentsDefinition> {
  const record = (entry ?? {}) as Record<string, unknown>;
  const candidate =
    typeof record.createAgents === 'function'
      ? await (record.createAgents as () => unknown)()
      : 'default' in record
        ? typeof record.default === 'function'
          ? await (record.default as () => unknown)()
          : record.default
        : record;
  const definition = (candidate ?? {}) as AgentsDefinition;
  const count = (definition.agents?.length ?? 0) + (definition.modules?.length ?? 0);
  if (
    !Array.isArray(definition.agents ?? []) ||
    !Array.isArray(definition.modules ?? []) ||
    count === 0
  ) {
    throw new AgentsEntryError(
      'The agents entry must export `agents` or `modules` (arrays), a default with them, or ' +
        '`createAgents()` returning them.',
    );
  }
  return definition;
}

/** The names of the agents an entry defines (its agents and its modules' agents), in order. */
export async function agentNamesOf(entry: unknown): Promise<string[]> {
  const definition = await resolveAgents(entry);
  const agents = [
    ...(definition.agents ?? []),
    ...(definition.modules ?? []).flatMap((module) => module.agents),
  ];
  return agents.map((agent) => agent.name);
}
