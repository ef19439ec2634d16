import type { BaseAgent } from '@google/adk';
import { Agent } from '../../core/agent.js';
import { Module, type WrapOptions } from '../../core/module.js';
import { AdkRunner } from './runner.js';

/** Wraps ADK agents (`LlmAgent`, …) so a Runtime can run them (`runtime.use(module)`). */
export class AdkModule extends Module<BaseAgent> {
  constructor(agents: readonly BaseAgent[] = [], runner = new AdkRunner()) {
    super(runner);
    for (const agent of agents) this.add(agent);
  }

  protected describe(native: BaseAgent): { name: string; description: string } {
    return { name: native.name, description: native.description ?? '' };
  }
}

/** One ADK agent as a runtime Agent, for use without a module. */
export function adkAgent(
  native: BaseAgent,
  options: WrapOptions<BaseAgent> & { runner?: AdkRunner; name?: string } = {},
): Agent<BaseAgent> {
  const { runner, name, ...rest } = options;
  return new Agent({
    name: name ?? native.name,
    description: native.description ?? '',
    ...rest,
    runner: runner ?? new AdkRunner(),
    native,
  });
}
