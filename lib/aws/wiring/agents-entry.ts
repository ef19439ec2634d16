import type { Agent } from '../../core/agent.js';
import type { RunJournalStore } from '../../core/journal.js';
import type { ToolLedger } from '../../core/ledger.js';
import type { Module } from '../../core/module.js';
import type { Tracer } from '../../core/tracer.js';
import type { AgentToolsMap } from '../../mcp/agent-tool-calls.js';
import { AgentsEntryError } from './errors.js';

/**
 * What a user's agents entry module exports (`#agents` in package.json "imports", replaced by the
 * `--agents` / AGENT_KERNEL_AGENTS setting): agents and modules, or a function that builds them
 * once per cold start. docs/agents.md is the contract.
 */
export interface AgentsDefinition {
  agents?: readonly Agent[];
  modules?: readonly Module<unknown>[];
  /**
   * Each agent's own ToolSpecs with the Executor that runs them, by agent name: what `/mcp`
   * lists and calls for the agents MCP_AGENT_TOOLS opts in (docs/protocol.md).
   */
  agentTools?: AgentToolsMap;
}

/**
 * What the deployment hands `createAgents(deps)` (or a default function): the table's tool
 * ledger for the agents' Executor, the run journal (the runtime already opens it per turn:
 * tools see it as `ToolContext.journal`), and the function's tracer. Absent outside a deployment.
 */
export interface AgentsDeps {
  readonly ledger?: ToolLedger;
  readonly journal?: RunJournalStore;
  readonly tracer?: Tracer;
}

type BuildAgents = (deps: AgentsDeps) => AgentsDefinition | Promise<AgentsDefinition>;

export type AgentsEntry =
  | AgentsDefinition
  | { default: AgentsDefinition | BuildAgents }
  | { createAgents: BuildAgents };

export async function resolveAgents(
  entry: unknown,
  deps: AgentsDeps = {},
): Promise<AgentsDefinition> {
  const record = (entry ?? {}) as Record<string, unknown>;
  const candidate =
    typeof record.createAgents === 'function'
      ? await (record.createAgents as BuildAgents)(deps)
      : 'default' in record
        ? typeof record.default === 'function'
          ? await (record.default as BuildAgents)(deps)
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
        '`createAgents()` returning them (docs/agents.md).',
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
