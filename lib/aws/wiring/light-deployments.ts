import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { FairUse } from '../../app/fair-use.js';
import type { IdempotencyStore } from '../../app/ports/idempotency.js';
import type { RunEventStore } from '../../app/ports/run-events.js';
import type { RunRecordStore } from '../../app/ports/run-records.js';
import type { SessionIndex } from '../../app/ports/session-index.js';
import type { SessionStore } from '../../core/session.js';
import type { PausedRunStore } from '../../core/stores.js';
import { noopTracer, type Tracer } from '../../core/tracer.js';
import { createDynamoClient } from '../../stores/dynamodb/client.js';
import { DynamoConnectionStore } from '../../stores/dynamodb/connection-store.js';
import { DynamoIdKeyStore } from '../../stores/dynamodb/id-key-store.js';
import { DynamoIdempotencyStore } from '../../stores/dynamodb/idempotency-store.js';
import { DynamoPausedRunStore } from '../../stores/dynamodb/paused-run-store.js';
import { DynamoRunEventStore } from '../../stores/dynamodb/run-event-store.js';
import { DynamoRunRecordStore } from '../../stores/dynamodb/run-record-store.js';
import { DynamoSessionIndex } from '../../stores/dynamodb/session-index.js';
import { DynamoSessionStore } from '../../stores/dynamodb/session-store.js';
import { captureClient } from '../../tracing/capture.js';
import type { Config, ConfigKey } from './config.js';
import { loadConfig } from './config-check.js';
import { ConfigError } from './errors.js';
import { fairUseFor } from './fair-use.js';

/** What the functions that never run an agent need: no Runtime, no agents entry in their bundle. */
export interface ConnectionsDeployment {
  readonly config: Config;
  readonly connections: DynamoConnectionStore;
  readonly tracer: Tracer;
  /** Fair use per principal (QUOTAS=on): connections (ws-connect) and runs (ws-message). */
  readonly fairUse?: FairUse | undefined;
}

/**
 * What ws-message needs for the front door: sessions (owner fixed on first accept), paused runs,
 * run records, idempotency (requestId conflicts), connections, the agent names.
 */
export interface MessageDeployment extends ConnectionsDeployment {
  readonly sessions: Pick<SessionStore, 'load' | 'save'>;
  readonly pausedRuns: Pick<PausedRunStore, 'get'>;
  readonly runs: RunRecordStore;
  /** Stored events, read by `subscribe` with `afterSeq`. */
  readonly events?: RunEventStore | undefined;
  readonly idempotency: IdempotencyStore;
  /** The owner index a first accept writes (`GET /sessions` reads it). */
  readonly sessionIndex?: SessionIndex | undefined;
  /** The deployment's id key (lib/app/ids.ts). */
  readonly idKey: { key(): Promise<Uint8Array> };
  /** The agents a `run` may name; undefined: unknown here, the worker refuses a wrong one. */
  readonly agentNames: ReadonlySet<string> | undefined;
}

/**
 * For fan-out: the configuration now (a missing variable fails the cold start), the connection
 * store on first use. No fair use (fan-out admits nothing), so its bundle holds no quota store.
 */
export function fanoutConnectionsFor(
  require: readonly ConfigKey[] = ['TABLE_NAME'],
  env: Record<string, string | undefined> = process.env,
  options: { tracer?: Tracer } = {},
): Promise<() => Promise<ConnectionsDeployment>> {
  return lazily(require, env, (config, stores) => connectionsOf(config, stores, options.tracer));
}

/** What every connections deployment holds. */
function connectionsOf(
  config: Config,
  stores: StoreOptions,
  tracer?: Tracer,
): ConnectionsDeployment {
  return { config, connections: new DynamoConnectionStore(stores), tracer: tracer ?? noopTracer };
}

/**
 * For ws-connect and ws-disconnect: as fan-out's, with fair use (QUOTAS=on) for connections.
 * Keeping `#agents` out of these bundles keeps them small and their cold starts short
 * (docs/benchmarks.md, "Bundles").
 */
export function connectionsFor(
  require: readonly ConfigKey[] = ['TABLE_NAME'],
  env: Record<string, string | undefined> = process.env,
  options: { tracer?: Tracer } = {},
): Promise<() => Promise<ConnectionsDeployment>> {
  return lazily(require, env, (config, stores) => ({
    ...connectionsOf(config, stores, options.tracer),
    fairUse: fairUseFor(config, stores),
  }));
}

/**
 * For ws-message: the stores it reads and the agent names from AGENT_NAMES — no Runtime and no
 * agents entry, so the function every WebSocket message goes through starts as fast as fan-out.
 */
export function messagesFor(
  require: readonly ConfigKey[] = ['TABLE_NAME', 'RUN_QUEUE_URL'],
  env: Record<string, string | undefined> = process.env,
  options: { tracer?: Tracer } = {},
): Promise<() => Promise<MessageDeployment>> {
  return lazily(require, env, (config, stores) => ({
    config,
    connections: new DynamoConnectionStore(stores),
    tracer: options.tracer ?? noopTracer,
    sessions: new DynamoSessionStore(stores),
    pausedRuns: new DynamoPausedRunStore(stores),
    runs: new DynamoRunRecordStore(stores),
    events: new DynamoRunEventStore({
      ...stores,
      ttlSeconds: config.EVENTS_TTL_SECONDS,
      flushMs: config.EVENTS_FLUSH_MS,
    }),
    idempotency: new DynamoIdempotencyStore(stores),
    sessionIndex: new DynamoSessionIndex(stores),
    idKey: new DynamoIdKeyStore(stores),
    agentNames: config.AGENT_NAMES,
    fairUse: fairUseFor(config, stores),
  }));
}

type StoreOptions = { client: DynamoDBClient; tableName: string; ttlSeconds: number };

/** The table's client, captured: each call is an `aws` span under the active request span. */
export function dynamoClientFor(config: Config): DynamoDBClient {
  return captureClient(
    createDynamoClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT }),
  );
}

/**
 * The configuration now (a function awaits it at cold start: a bad value fails there); the
 * client and stores once, on first use.
 */
async function lazily<T>(
  require: readonly ConfigKey[],
  env: Record<string, string | undefined>,
  build: (config: Config, stores: StoreOptions) => T,
): Promise<() => Promise<T>> {
  const config = loadConfig(env, require);
  let built: T | undefined;
  return async () => {
    if (!config.TABLE_NAME)
      throw new ConfigError([{ variable: 'TABLE_NAME', message: 'is required' }]);
    built ??= build(config, {
      client: dynamoClientFor(config),
      tableName: config.TABLE_NAME,
      ttlSeconds: config.SESSION_TTL_SECONDS,
    });
    return built;
  };
}
