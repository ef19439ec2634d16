/**
 * `node --import tsx --import lib/local/agents-imports-register.ts …`: the agents module's import
 * rules (agents-imports.ts) in a child process, e.g. the synth's agent-name lister
 * (infra/agent-names.ts); `#agents` is AGENT_KERNEL_AGENTS when set.
 */
import { registerAgentsImports } from './agents-imports.js';

registerAgentsImports(process.env.AGENT_KERNEL_AGENTS || undefined);
