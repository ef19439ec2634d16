import { Agent } from '../../core/agent.js';
import { Module, type WrapOptions } from '../../core/module.js';
import { type NativeOpenAIAgent, OpenAIRunner, type OpenAIRunnerOptions } from './runner.js';

/** Wraps `@openai/agents` agents so a Runtime can run them (`runtime.use(module)`). */
export class OpenAIModule extends Module<NativeOpenAIAgent> {
  constructor(
    agents: readonly NativeOpenAIAgent[] = [],
    runner: OpenAIRunner | OpenAIRunnerOptions = {},
  ) {
    super(runner instanceof OpenAIRunner ? runner : new OpenAIRunner(runner));
    for (const agent of agents) this.add(agent);
  }

  protected describe(native: NativeOpenAIAgent): { name: string; description: string } {
    return { name: native.name, description: native.handoffDescription ?? '' };
  }
}

/** One `@openai/agents` agent as a runtime Agent, for use without a module. */
export function openaiAgent(
  native: NativeOpenAIAgent,
  options: WrapOptions<NativeOpenAIAgent> & { runner?: OpenAIRunner } = {},
): Agent<NativeOpenAIAgent> {
  const { runner, ...rest } = options;
  return new Agent({
    name: native.name,
    description: native.handoffDescription ?? '',
    ...rest,
    runner: runner ?? new OpenAIRunner(),
    native,
  });
}
