import { AgentKernelError } from '../core/errors.js';

/** The function's environment is missing a variable or has a bad value: fails at cold start. */
export class ConfigError extends AgentKernelError {
  readonly variables: readonly string[];

  constructor(problems: readonly { variable: string; message: string }[]) {
    super(
      'config-error',
      `Invalid environment: ${problems.map((p) => `${p.variable} ${p.message}`).join('; ')}`,
    );
    this.variables = problems.map((p) => p.variable);
  }
}

/** The agents entry module does not export what a deployment needs. */
export class AgentsEntryError extends AgentKernelError {
  constructor(message: string) {
    super('agents-entry-error', message);
  }
}
