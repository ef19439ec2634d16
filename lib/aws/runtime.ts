import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Runtime } from '../core/runtime.js';
import type { Tracer } from '../core/tracer.js';
import {
  createDynamoClient,
  DynamoConnectionStore,
  DynamoIdempotencyStore,
  DynamoPausedRunStore,
  DynamoRunRecordStore,
  DynamoSessionLock,
  DynamoSessionStore,
  DynamoToolLedger,
} from '../stores/dynamodb/index.js';
import type { AgentsDefinition } from './agents.js';
import type { Config } from './config.js';
import { ConfigError } from './errors.js';

/** Everything a function needs from the table: built once per cold start, shared by invocations. */
export interface Deployment {
  readonly config: Config;
  readonly client: DynamoDBClient;
  readonly runtime: Runtime;
  readonly runs: DynamoRunRecordStore;
  readonly connections: DynamoConnectionStore;
  readonly idempotency: DynamoIdempotencyStore;
  readonly ledger: DynamoToolLedger;
}

export function buildDeployment(
  config: Config,
  agents: AgentsDefinition,
  options: { client?: DynamoDBClient; tracer?: Tracer } = {},
): Deployment {
  if (!config.TABLE_NAME)
    throw new ConfigError([{ variable: 'TABLE_NAME', message: 'is required' }]);
  const client =
    options.client ??
    createDynamoClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT });
  const stores = { client, tableName: config.TABLE_NAME, ttlSeconds: config.SESSION_TTL_SECONDS };
  const runtime = new Runtime({
    sessions: new DynamoSessionStore(stores),
    pausedRuns: new DynamoPausedRunStore(stores),
    pausedRunTtlMs: config.PAUSED_RUN_TTL_SECONDS * 1000,
    // Turns of one session may land on different instances: the lease serialises them.
    lock: new DynamoSessionLock(stores),
    agents: agents.agents ?? [],
    modules: agents.modules ?? [],
    ...(options.tracer ? { tracer: options.tracer } : {}),
  });
  return {
    config,
    client,
    runtime,
    runs: new DynamoRunRecordStore(stores),
    connections: new DynamoConnectionStore(stores),
    idempotency: new DynamoIdempotencyStore(stores),
    ledger: new DynamoToolLedger(stores),
  };
}
