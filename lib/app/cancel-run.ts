import { AgentKernelError } from '../core/errors.js';
import type { Interruption, Reply } from '../core/requests.js';
import type { FrontDoor } from './front-door.js';

/** A run that cannot be cancelled from here: it is running elsewhere or has ended. */
export class RunNotCancelable extends AgentKernelError {
  constructor(runId: string, status: string) {
    super(
      'run-not-cancelable',
      `Run "${runId}" is ${status}: only a run waiting for decisions can be cancelled.`,
    );
  }
}

export interface CancelRequest {
  principal: unknown;
  sessionId: string;
  runId: string;
}

/** Why the pending calls were refused: what the agent reads in each denial. */
export const CANCEL_MESSAGE = 'Cancelled by the user: the call was not made.';

/**
 * Cancels the caller's paused run (A2A `tasks/cancel`): every pending call is answered with a
 * denial through the front door's resume, so the call never runs, the session is free again and
 * the paused run's claim keeps it to once (a racing approval or second cancel is refused). A
 * run still running (in another invocation) or ended is `run-not-cancelable`; another
 * principal's is `not-found`, as the read says.
 */
export async function cancelPausedRun(door: FrontDoor, request: CancelRequest): Promise<Reply> {
  const { principal, sessionId, runId } = request;
  const run = (await door.readRun(principal, sessionId, runId)) as {
    status: string;
    reply?: { interruptions?: Interruption[] };
  };
  const pending = run.reply?.interruptions;
  if (run.status !== 'paused' || !pending?.length) throw new RunNotCancelable(runId, run.status);
  const decisions = pending.map((i) => ({
    id: i.id,
    status: 'denied' as const,
    message: CANCEL_MESSAGE,
  }));
  return door.resumeNow({ principal, sessionId, runId, decisions }).catch((err) => {
    if (err instanceof AgentKernelError && err.code === 'paused-run-not-found') {
      throw new RunNotCancelable(runId, 'not waiting for decisions');
    }
    throw err;
  });
}
