import type { Logger } from '@aws-lambda-powertools/logger';
import { retrying } from '../app/jobs/retry.js';
import { emitCount } from './emf.js';

export { retrying } from '../app/jobs/retry.js';

/**
 * Steps that run after a turn's outcome is known (stored, or a run-error sent): they must not
 * send the job back to the queue, since a redelivery would run a stored turn again. Each is
 * retried in place with backoff; one that still fails is logged and counted, never thrown.
 */

/** Counters the worker and the delivery emit as CloudWatch EMF lines (no dimensions). */
export type PipelineMetric =
  | 'PostTurnStepFailures'
  | 'ConnectionsDropped'
  | 'JobRetries'
  | 'RunTimeouts'
  | 'ResumesRefused'
  | 'TurnsRecovered'
  | 'ClearsRefused';

/**
 * A step after the turn's outcome: retried in place; if it still fails, logged and counted
 * (`PostTurnStepFailures`) and `false` is answered. Never throws.
 */
export async function afterTurn(
  step: string,
  fn: () => Promise<unknown>,
  context: { logger?: Logger | undefined; runId: string; until?: number | undefined },
): Promise<boolean> {
  try {
    await retrying(fn, context.until === undefined ? {} : { until: context.until });
    return true;
  } catch (err) {
    countMetric(context.logger, 'PostTurnStepFailures', {
      step,
      runId: context.runId,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    });
    return false;
  }
}

/**
 * One EMF line: CloudWatch Logs turns `name` into a metric of the tracing namespace; the other
 * properties are searchable in Logs Insights but are not dimensions (run ids would explode them).
 */
export function countMetric(
  logger: Logger | undefined,
  name: PipelineMetric,
  properties: Record<string, unknown> = {},
  value = 1,
): void {
  emitCount(logger, { name, value, properties });
}
