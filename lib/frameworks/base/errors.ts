import { AgentKernelError } from '../../core/errors.js';

/** An integration name that discovery does not know (MissingDependency covers absent packages). */
export class IntegrationError extends AgentKernelError {
  constructor(name: string, known: readonly string[]) {
    super(
      'unknown-integration',
      `No integration named "${name}" was found` +
        (known.length ? ` (available: ${known.join(', ')}).` : ' (none is available).'),
    );
  }
}
