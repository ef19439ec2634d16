import { Agent, type AgentConfig } from './agent.js';
import { DuplicateAgent } from './errors.js';
import type { Runner } from './runner.js';

/** Per-agent settings a module adds around a native agent. */
export type WrapOptions<TNative> = Partial<Omit<AgentConfig<TNative>, 'runner' | 'native'>>;

/**
 * Wraps the native agents of one framework and hands them to a Runtime (`runtime.use(module)`).
 * Subclasses say how to read a name and description off a native agent.
 */
export abstract class Module<TNative> {
  readonly runner: Runner<TNative>;
  readonly #agents = new Map<string, Agent<TNative>>();

  constructor(runner: Runner<TNative>) {
    this.runner = runner;
  }

  protected abstract describe(native: TNative): { name: string; description: string };

  add(native: TNative, options: WrapOptions<TNative> = {}): Agent<TNative> {
    const described = this.describe(native);
    const agent = new Agent<TNative>({
      ...described,
      ...options,
      runner: this.runner,
      native,
    });
    if (this.#agents.has(agent.name)) throw new DuplicateAgent(agent.name);
    this.#agents.set(agent.name, agent);
    return agent;
  }

  get agents(): readonly Agent<TNative>[] {
    return [...this.#agents.values()];
  }
}
