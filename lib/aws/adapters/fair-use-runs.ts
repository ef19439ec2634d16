import { leaseIdOf, type UsageTally } from '../../app/fair-use.js';
import type { RunJob } from '../../transport/protocol.js';
import type { FunctionLogger as Logger } from '../middleware/json-logger.js';
import type { Deployment } from '../wiring/deployment.js';
import { countMetric } from './job-metrics.js';

/**
 * The worker's end of a queued run under fair use: each attempt's model tokens are added to the
 * principal's day; the run's in-flight lease goes once the job is done (a job given back for a
 * retry keeps it). Never throws: the turn's outcome stands; a lease left behind lapses.
 */
export async function endQueuedRun(
  deployed: Pick<Deployment, 'fairUse'>,
  job: RunJob,
  usage: UsageTally,
  done: boolean,
  logger?: Logger,
): Promise<void> {
  if (!deployed.fairUse || job.kind === 'clear') return;
  const lease = leaseIdOf(job.runId, job.requestId);
  try {
    await deployed.fairUse.ended(job.principal, lease, usage.total, { release: done });
  } catch (err) {
    countMetric(logger, 'PostTurnStepFailures', {
      step: 'quota-end',
      runId: job.runId,
      error: String(err),
    });
  }
}
