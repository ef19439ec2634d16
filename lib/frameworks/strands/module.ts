import { Agent } from '../../core/agent.js';
import { Module, type WrapOptions } from '../../core/module.js';
import { type StrandsAgentDefinition, StrandsRunner } from './runner.js';

/** Wraps Strands agent definitions so a Runtime can run them (`runtime.use(module)`). */
export class StrandsModule extends Module<StrandsAgentDefinition> {
  constructor(agents: readonly StrandsAgentDefinition[] = [], runner = new StrandsRunner()) {
    super(runner);
    for (const agent of agents) this.add(agent);
  }

  protected describe(native: StrandsAgentDefinition): { name: string; description: string } {
    return { name: native.name, description: native.description ?? '' };
  }
}

/** One Strands agent definition as a runtime Agent, for use without a module. */
export function strandsAgent(
  native: StrandsAgentDefinition,
  options: WrapOptions<StrandsAgentDefinition> & { runner?: StrandsRunner } = {},
): Agent<StrandsAgentDefinition> {
  const { runner, ...rest } = options;
  return new Agent({
    name: native.name,
    description: native.description ?? '',
    ...rest,
    runner: runner ?? new StrandsRunner(),
    native,
  });
}
