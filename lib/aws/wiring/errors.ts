import { AgentKernelError } from '../../core/errors.js';

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

/**
 * The model provider secret could not be read (`model-secret-unavailable`) or holds something
 * that cannot be put in the environment (`model-secret-invalid`). The message names the secret
 * and never carries its value; the cold start fails and the next invocation tries again.
 */
export class ModelSecretError extends AgentKernelError {
  constructor(code: 'model-secret-unavailable' | 'model-secret-invalid', message: string) {
    super(code, message);
  }
}

/**
 * The worker stopped a run a safe margin before the function's deadline
 * (`RUN_DEADLINE_MARGIN_SECONDS`): the run is recorded `timed-out` and its job comes back soon,
 * so a retry continues it.
 */
export class RunTimeout extends AgentKernelError {
  constructor(message = 'The run reached the function’s deadline; it will be retried.') {
    super('run-timeout', message);
  }
}
