import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { FairUse } from '../../app/fair-use.js';
import type { PendingApprovalIndex } from '../../app/ports/approvals.js';
import { Runtime } from '../../core/runtime.js';
import { noopTracer, type Tracer } from '../../core/tracer.js';
import type { AgentToolsMap } from '../../mcp/agent-tool-calls.js';
import {
  DynamoConnectionStore,
  DynamoIdempotencyStore,
  DynamoIdKeyStore,
  DynamoPausedRunStore,
  DynamoRunEventStore,
  DynamoRunJournalStore,
  DynamoRunRecordStore,
  DynamoSessionIndex,
  DynamoSessionLock,
  DynamoSessionStore,
  DynamoToolLedger,
} from '../../stores/dynamodb/index.js';
import type { Redactor } from '../../tracing/redact.js';
import { type AgentsDefinition, type AgentsDeps, resolveAgents } from './agents-entry.js';
import { type Config, type ConfigKey, loadConfig } from './config.js';
import { ConfigError } from './errors.js';
import { fairUseFor } from './fair-use.js';
import { dynamoClientFor } from './light-deployments.js';
import { loadModelSecret } from './model-secret.js';

/** Everything a function needs from the table: built once per cold start, shared by invocations. */
export interface Deployment {
  readonly config: Config;
  readonly client: DynamoDBClient;
  readonly runtime: Runtime;
  readonly runs: DynamoRunRecordStore;
  /** Stored events: every delivered message, kept EVENTS_TTL_SECONDS for reconnects. */
  readonly events: DynamoRunEventStore;
  readonly connections: DynamoConnectionStore;
  readonly idempotency: DynamoIdempotencyStore;
  /** Each principal's sessions, newest first (`GET /sessions`). */
  readonly sessionIndex: DynamoSessionIndex;
  /** The paused runs waiting for decisions (`GET /approvals`): the paused-run store's index. */
  readonly approvals?: PendingApprovalIndex | undefined;
  /** The deployment's id key (lib/app/ids.ts): server-made ids nobody else can compute. */
  readonly idKey: DynamoIdKeyStore;
  readonly ledger: DynamoToolLedger;
  /** The run journal the runtime opens per turn (replay, tool calls at most once). */
  readonly journal: DynamoRunJournalStore;
  /** The function's tracer (no-op unless tracing is on): handlers open request spans with it. */
  readonly tracer: Tracer;
  /** Fair use per principal (QUOTAS=on), else undefined. */
  readonly fairUse?: FairUse | undefined;
  /** The agents entry's own tools per agent (`/mcp` exposes those MCP_AGENT_TOOLS opts in). */
  readonly agentTools?: AgentToolsMap | undefined;
}

export interface DeploymentOptions {
  client?: DynamoDBClient;
  tracer?: Tracer;
  /** The function's redactor: error messages leaving the runtime pass through `string`. */
  redactor?: Pick<Redactor, 'string'>;
}

/** The stores an agents entry may use (`createAgents(deps)`), built before the agents. */
export interface DeploymentStores extends AgentsDeps {
  readonly client: DynamoDBClient;
  readonly ledger: DynamoToolLedger;
  readonly journal: DynamoRunJournalStore;
  readonly tracer: Tracer;
}

/** The table's client, ledger and journal: what the agents entry receives, then the runtime. */
export function deploymentStores(
  config: Config,
  options: Pick<DeploymentOptions, 'client' | 'tracer'> = {},
): DeploymentStores {
  if (!config.TABLE_NAME)
    throw new ConfigError([{ variable: 'TABLE_NAME', message: 'is required' }]);
  const client = options.client ?? dynamoClientFor(config);
  const stores = { client, tableName: config.TABLE_NAME, ttlSeconds: config.SESSION_TTL_SECONDS };
  return {
    client,
    ledger: new DynamoToolLedger(stores),
    journal: new DynamoRunJournalStore(stores),
    tracer: options.tracer ?? noopTracer,
  };
}

export function buildDeployment(
  config: Config,
  agents: AgentsDefinition,
  options: DeploymentOptions & { stores?: DeploymentStores } = {},
): Deployment {
  const built = options.stores ?? deploymentStores(config, options);
  const { client, tracer } = built;
  const tableName = config.TABLE_NAME as string;
  const stores = { client, tableName, ttlSeconds: config.SESSION_TTL_SECONDS };
  const redactor = options.redactor;
  const pausedRuns = new DynamoPausedRunStore(stores);
  const runtime = new Runtime({
    sessions: new DynamoSessionStore(stores),
    pausedRuns,
    pausedRunTtlMs: config.PAUSED_RUN_TTL_SECONDS * 1000,
    // Above the longest function timeout, or a second resume could repeat a live one's tool calls.
    resumeClaimMs: config.RESUME_CLAIM_SECONDS * 1000,
    // Turns of one session may land on different instances: the lease serialises them.
    lock: new DynamoSessionLock({ ...stores, leaseMs: config.SESSION_LEASE_SECONDS * 1000 }),
    agents: agents.agents ?? [],
    modules: agents.modules ?? [],
    tracer,
    // A redelivered job replays what its earlier attempt did: no tool call runs twice.
    journal: built.journal,
    ...(redactor ? { redact: (text: string) => redactor.string(text) } : {}),
  });
  return {
    config,
    client,
    runtime,
    runs: new DynamoRunRecordStore(stores),
    events: new DynamoRunEventStore({
      ...stores,
      ttlSeconds: config.EVENTS_TTL_SECONDS,
      flushMs: config.EVENTS_FLUSH_MS,
    }),
    connections: new DynamoConnectionStore(stores),
    idempotency: new DynamoIdempotencyStore(stores),
    sessionIndex: new DynamoSessionIndex(stores),
    approvals: pausedRuns,
    idKey: new DynamoIdKeyStore(stores),
    ledger: built.ledger,
    journal: built.journal,
    tracer,
    fairUse: fairUseFor(config, stores),
    agentTools: agents.agentTools,
  };
}

/**
 * For functions/: reads the configuration now (a missing variable fails the cold start with its
 * name) and builds the deployment once, on first use, shared by every invocation.
 */
export function deploymentFor(
  entry: unknown,
  require: readonly ConfigKey[] = ['TABLE_NAME'],
  env: Record<string, string | undefined> = process.env,
  options: { tracer?: Tracer; redactor?: Pick<Redactor, 'learn' | 'string'> } = {},
): () => Promise<Deployment> {
  const config = loadConfig(env, require);
  let built: Promise<Deployment> | undefined;
  return () => {
    // The model key first: an agents entry reads it from the environment when it builds agents.
    built ??= loadModelSecret(config, env).then((loaded) => {
      // The logger and tracer exist since module load: tell their redactor the new values.
      for (const name of loaded?.variables ?? []) options.redactor?.learn(env[name] ?? '');
      // The agents entry gets the deployment's ledger, journal and tracer (its Executor).
      const stores = deploymentStores(config, options);
      return resolveAgents(entry, stores).then((agents) =>
        buildDeployment(config, agents, { ...options, stores }),
      );
    });
    // A failed build is retried on the next invocation rather than cached.
    built.catch(() => {
      built = undefined;
    });
    return built;
  };
}
