import { AgentKernelError } from '../core/errors.js';

/** An event pushed after the batcher was closed or its run ended. */
export class BatcherClosed extends AgentKernelError {
  constructor(runId: string, reason: 'closed' | 'run-ended') {
    super(
      'batcher-closed',
      reason === 'closed'
        ? `The event batcher of run "${runId}" is closed.`
        : `Run "${runId}" already ended: no event may follow its final one.`,
    );
  }
}

/** An event of another run pushed into a run's batcher: seq would no longer mean anything. */
export class ForeignEvent extends AgentKernelError {
  constructor(expected: string, got: string) {
    super('foreign-event', `The batcher of run "${expected}" got an event of run "${got}".`);
  }
}

/** Batcher options that cannot work (a limit too small for even one event). */
export class InvalidBatcherOptions extends AgentKernelError {
  constructor(message: string) {
    super('invalid-batcher-options', message);
  }
}
