import { AgentKernelError } from '../core/errors.js';

/**
 * The front door's refusals. Every front encodes them the same way (an `error` message, an HTTP
 * status from errors-http.ts, a logged drop on a queue).
 */

/**
 * What another principal gets for a session it does not own, and anyone for one that does not
 * exist: the same code and the same text, so the answer tells nothing about other users.
 */
export class NotFound extends AgentKernelError {
  constructor(what: string) {
    super('not-found', `${what} was not found.`);
  }
}

/** The request reached the front door with no principal, whatever the gateway did. */
export class Unauthenticated extends AgentKernelError {
  constructor(detail = 'The request has no authenticated principal.') {
    super('unauthorized', detail);
  }
}

/** A requestId or Idempotency-Key sent again with another payload: refused, nothing runs. */
export class RequestConflict extends AgentKernelError {
  constructor(what: string) {
    super('request-conflict', `${what} was already used for another request.`);
  }
}

/** The first request with this key still runs: the retry should wait and try again. */
export class RequestInProgress extends AgentKernelError {
  constructor(what: string) {
    super('request-in-progress', `${what} is still being handled.`);
  }
}

/**
 * A decision for a paused run someone else already decided (its resume ran or runs): refused,
 * nothing runs. The same code as a second claim's (`run-already-resumed`, HTTP 409).
 */
export class RunAlreadyDecided extends AgentKernelError {
  constructor(sessionId: string, runId: string, status: string) {
    super(
      'run-already-resumed',
      `Run "${runId}" of session "${sessionId}" was already decided by someone else (it is ${status} now).`,
    );
  }
}
