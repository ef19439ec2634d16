import { Agent } from '../../core/agent.js';
import { Module, type WrapOptions } from '../../core/module.js';
import { type AiSdkAgentDefinition, AiSdkRunner } from './runner.js';

/** Wraps AI SDK agent definitions so a Runtime can run them (`runtime.use(module)`). */
export class AiSdkModule extends Module<AiSdkAgentDefinition> {
  constructor(agents: readonly AiSdkAgentDefinition[] = [], runner = new AiSdkRunner()) {
    super(runner);
    for (const agent of agents) this.add(agent);
  }

  protected describe(native: AiSdkAgentDefinition): { name: string; description: string } {
    return { name: native.name, description: native.description ?? '' };
  }
}

/** One AI SDK agent definition as a runtime Agent, for use without a module. */
export function aiSdkAgent(
  native: AiSdkAgentDefinition,
  options: WrapOptions<AiSdkAgentDefinition> & { runner?: AiSdkRunner } = {},
): Agent<AiSdkAgentDefinition> {
  const { runner, ...rest } = options;
  return new Agent({
    name: native.name,
    description: native.description ?? '',
    ...rest,
    runner: runner ?? new AiSdkRunner(),
    native,
  });
}
