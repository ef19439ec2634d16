import type { JobMetrics } from '../ports/jobs.js';
import { settled } from './retry.js';

/**
 * A step that runs after a turn's outcome is known (stored, or a run-error sent): it must not
 * send the job back to the queue, since a redelivery would run a stored turn again. Retried in
 * place with backoff (bounded by `until`); one that still fails is counted
 * (`PostTurnStepFailures`) and `false` answered. Never throws.
 */
export function afterTurn(
  step: string,
  fn: () => Promise<unknown>,
  context: { metrics: JobMetrics; runId: string; until?: number | undefined },
): Promise<boolean> {
  return settled(fn, {
    until: context.until,
    failed: (err) =>
      context.metrics.count('PostTurnStepFailures', {
        step,
        runId: context.runId,
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      }),
  });
}
