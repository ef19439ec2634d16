import { AgentKernelError } from '../../core/errors.js';
import type { RunJob } from '../../transport/protocol.js';
import type { JobLogger, JobPorts } from '../ports/jobs.js';
import type { JobResult } from './run-job.js';

/** Failures a later attempt may not meet: the job goes back to the queue. */
const RETRYABLE = new Set(['store-throttled', 'session-busy', 'session-conflict']);

/** A queued `clear`: the session is forgotten in its FIFO order, after the turns before it. */
export async function clearJob(
  ports: Pick<JobPorts, 'runtime' | 'metrics'>,
  job: Extract<RunJob, { kind: 'clear' }>,
  logger?: JobLogger,
): Promise<JobResult> {
  try {
    const { cleared } = await ports.runtime.clearSession(job.sessionId, {
      principal: job.principal,
    });
    logger?.info('session cleared', { sessionId: job.sessionId, cleared });
    return { done: true, status: cleared ? 'cleared' : 'absent' };
  } catch (err) {
    if (!(err instanceof AgentKernelError)) throw err;
    if (RETRYABLE.has(err.code)) return { done: false, reason: err.code };
    // Refused (the owner changed meanwhile, a bad id): retrying cannot help.
    ports.metrics.count('ClearsRefused', { sessionId: job.sessionId, code: err.code });
    return { done: true, status: 'refused' };
  }
}
