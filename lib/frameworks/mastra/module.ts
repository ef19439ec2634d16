import { Agent } from '../../core/agent.js';
import { Module, type WrapOptions } from '../../core/module.js';
import { type MastraNativeAgent, MastraRunner, warmTools } from './runner.js';

/** Wraps Mastra agents so a Runtime can run them (`runtime.use(module)`), each under its id. */
export class MastraModule extends Module<MastraNativeAgent> {
  constructor(agents: readonly MastraNativeAgent[] = [], runner = new MastraRunner()) {
    super(runner);
    for (const agent of agents) this.add(agent);
  }

  protected describe(native: MastraNativeAgent): { name: string; description: string } {
    void warmTools(native).catch(() => undefined);
    return { name: native.id, description: native.getDescription() };
  }
}

/** One Mastra agent as a runtime Agent (named by its id), for use without a module. */
export function mastraAgent(
  native: MastraNativeAgent,
  options: WrapOptions<MastraNativeAgent> & { runner?: MastraRunner; name?: string } = {},
): Agent<MastraNativeAgent> {
  const { runner, name, ...rest } = options;
  // The card's skills: Mastra lists tools asynchronously, so they are listed now, ahead of it.
  void warmTools(native).catch(() => undefined);
  return new Agent({
    name: name ?? native.id,
    description: native.getDescription(),
    ...rest,
    runner: runner ?? new MastraRunner(),
    native,
  });
}
