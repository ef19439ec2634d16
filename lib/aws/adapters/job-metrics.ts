import { afterTurn as afterTurnWith } from '../../app/jobs/after-turn.js';
import type { JobMetrics, PipelineMetric } from '../../app/ports/jobs.js';
import type { FunctionLogger } from '../middleware/json-logger.js';
import { emitCount } from './emf-count.js';

// The AWS side of lib/app/jobs' post-turn steps: its metrics as CloudWatch EMF lines.

export { retrying } from '../../app/jobs/retry.js';
export type { PipelineMetric } from '../../app/ports/jobs.js';

/** `afterTurn` of lib/app/jobs, counting into EMF through `logger`. */
export function afterTurn(
  step: string,
  fn: () => Promise<unknown>,
  context: { logger?: FunctionLogger | undefined; runId: string; until?: number | undefined },
): Promise<boolean> {
  const { logger, ...where } = context;
  return afterTurnWith(step, fn, { ...where, metrics: emfMetrics(logger) });
}

/** The job pipeline's metrics port as EMF lines (no dimensions) through the logger. */
export function emfMetrics(logger: FunctionLogger | undefined): JobMetrics {
  return { count: (name, properties) => countMetric(logger, name, properties) };
}

/**
 * One EMF line: CloudWatch Logs turns `name` into a metric of the tracing namespace; the other
 * properties are searchable in Logs Insights but are not dimensions (run ids would explode them).
 */
export function countMetric(
  logger: FunctionLogger | undefined,
  name: PipelineMetric,
  properties: Record<string, unknown> = {},
  value = 1,
): void {
  emitCount(logger, { name, value, properties });
}
