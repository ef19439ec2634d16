import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { FairUse } from '../../app/fair-use.js';
import type { QuotaLimits } from '../../app/ports/quotas.js';
import { DynamoQuotaStore } from '../../stores/dynamodb/quota-store.js';
import { emitCount } from '../adapters/emf-count.js';
import type { Config } from './config.js';

/** The stack's limits from QUOTA_* (an unset variable is no limit). */
export function stackLimits(config: Config): QuotaLimits {
  const limits: QuotaLimits = {};
  if (config.QUOTA_CONNECTIONS !== undefined) limits.connections = config.QUOTA_CONNECTIONS;
  if (config.QUOTA_RUNS_IN_FLIGHT !== undefined) limits.runsInFlight = config.QUOTA_RUNS_IN_FLIGHT;
  if (config.QUOTA_RUNS_PER_MINUTE !== undefined) {
    limits.runsPerMinute = config.QUOTA_RUNS_PER_MINUTE;
  }
  if (config.QUOTA_TOKENS_PER_DAY !== undefined) limits.tokensPerDay = config.QUOTA_TOKENS_PER_DAY;
  return limits;
}

/**
 * A function's fair use (QUOTAS=on), on the table's `QUOTA#` partitions; undefined when off.
 * Its counts are EMF lines: `QuotaRefusals` by `quota`, `ModelTokens`; the principal is a
 * property (searchable in Logs Insights), never a dimension.
 */
export function fairUseFor(
  config: Config,
  stores: { client: DynamoDBClient; tableName: string },
): FairUse | undefined {
  if (config.QUOTAS !== 'on') return undefined;
  return new FairUse(new DynamoQuotaStore(stores), {
    limits: stackLimits(config),
    queuedLeaseMs: config.QUOTA_QUEUED_LEASE_SECONDS * 1000,
    connectionLeaseMs: config.QUOTA_CONNECTION_LEASE_SECONDS * 1000,
    metric: (name, value, fields) => {
      // Info lines, as the functions' logger writes them: not below its level (a terminal chat).
      if (!logsInfo()) return;
      const { principal, ...dimensions } = fields;
      emitCount(undefined, {
        name,
        value,
        level: 'info',
        dimensions,
        properties: principal ? { principal } : {},
      });
    },
  });
}

/** Whether the function's log level (Powertools' variables, as its logger reads them) shows info. */
function logsInfo(): boolean {
  const level = (
    process.env.POWERTOOLS_LOG_LEVEL ??
    process.env.AWS_LAMBDA_LOG_LEVEL ??
    'INFO'
  ).toUpperCase();
  return level === 'INFO' || level === 'DEBUG' || level === 'TRACE';
}
