import * as z from 'zod/mini';
import { InvalidRequest } from './errors.js';
import type { PostHook, PreHook } from './hooks.js';
import { lazySchema } from './lazy-schema.js';
import { assertNoReservedKeys, type RunOptions, type RunOptionsFactory } from './run-options.js';
import type { Runner } from './runner.js';

export const AgentNameSchema = /* @__PURE__ */ lazySchema(() =>
  z
    .string()
    .check(
      z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'agent name must be 1-64 characters of A-Z a-z 0-9 _ -'),
    ),
);

/** A2A agent card: how other agents and UIs discover what this agent does. */
export interface AgentCard {
  name: string;
  description: string;
  version: string;
  capabilities: { streaming: boolean; pushNotifications: boolean; humanInTheLoop: boolean };
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: { id: string; name: string; description: string; tags: string[] }[];
}

export interface AgentConfig<TNative> {
  name: string;
  description?: string;
  version?: string;
  runner: Runner<TNative>;
  native: TNative;
  skills?: AgentCard['skills'];
  preHooks?: readonly PreHook[];
  postHooks?: readonly PostHook[];
  /** Passed to the framework's run call on every turn. */
  runOptions?: RunOptions;
  /** Per-run options merged over `runOptions`. */
  runOptionsFactory?: RunOptionsFactory;
}

/** A framework-neutral wrapper around one native agent and the runner that runs it. */
export class Agent<TNative = unknown> {
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly runner: Runner<TNative>;
  readonly native: TNative;
  readonly preHooks: readonly PreHook[];
  readonly postHooks: readonly PostHook[];
  readonly runOptions: RunOptions;
  readonly runOptionsFactory: RunOptionsFactory | undefined;
  readonly #skills: AgentCard['skills'];

  constructor(config: AgentConfig<TNative>) {
    const name = AgentNameSchema.safeParse(config.name);
    if (!name.success) {
      throw new InvalidRequest(
        `Invalid agent name "${config.name}": ${name.error.issues[0]?.message}`,
      );
    }
    // Rejected at declaration, so a misconfigured agent never reaches a run.
    const { runner } = config;
    assertNoReservedKeys(
      runner.name,
      runner.reservedRunOptions,
      config.runOptions,
      runner.validateRunOptions?.bind(runner),
    );
    this.name = config.name;
    this.description = config.description ?? '';
    this.version = config.version ?? '1.0.0';
    this.runner = config.runner;
    this.native = config.native;
    this.preHooks = config.preHooks ?? [];
    this.postHooks = config.postHooks ?? [];
    this.runOptions = Object.freeze({ ...config.runOptions });
    this.runOptionsFactory = config.runOptionsFactory;
    this.#skills = config.skills ?? [];
  }

  card(): AgentCard {
    return {
      name: this.name,
      description: this.description,
      version: this.version,
      capabilities: {
        streaming: this.runner.supportsStreaming,
        pushNotifications: false,
        humanInTheLoop: this.runner.supportsPause,
      },
      defaultInputModes: ['text/plain', 'image/*', 'application/octet-stream'],
      defaultOutputModes: ['text/plain', 'application/json'],
      skills: this.#skills.length > 0 ? this.#skills : this.#toolSkills(),
    };
  }

  /** Undeclared skills: one per tool of the native agent, as its runner reads them. */
  #toolSkills(): AgentCard['skills'] {
    const tools = this.runner.describeTools?.(this.native) ?? [];
    return tools.map((t) => ({
      id: t.name,
      name: t.name,
      description: t.description,
      tags: ['tool'],
    }));
  }
}
