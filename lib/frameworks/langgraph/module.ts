import { Agent } from '../../core/agent.js';
import { Module, type WrapOptions } from '../../core/module.js';
import { type LangGraphAgentDefinition, LangGraphRunner } from './runner.js';

/** Wraps compiled LangGraph graphs so a Runtime can run them (`runtime.use(module)`). */
export class LangGraphModule extends Module<LangGraphAgentDefinition> {
  constructor(agents: readonly LangGraphAgentDefinition[] = [], runner = new LangGraphRunner()) {
    super(runner);
    for (const agent of agents) this.add(agent);
  }

  protected describe(native: LangGraphAgentDefinition): { name: string; description: string } {
    return { name: native.name, description: native.description ?? '' };
  }
}

/** One compiled graph as a runtime Agent, for use without a module. */
export function langgraphAgent(
  native: LangGraphAgentDefinition,
  options: WrapOptions<LangGraphAgentDefinition> & { runner?: LangGraphRunner } = {},
): Agent<LangGraphAgentDefinition> {
  const { runner, ...rest } = options;
  return new Agent({
    name: native.name,
    description: native.description ?? '',
    ...rest,
    runner: runner ?? new LangGraphRunner(),
    native,
  });
}
