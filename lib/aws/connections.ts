import { noopTracer, type Tracer } from '../core/tracer.js';
import { createDynamoClient } from '../stores/dynamodb/client.js';
import { DynamoConnectionStore } from '../stores/dynamodb/connection-store.js';
import { captureClient } from '../tracing/capture.js';
import { type Config, type ConfigKey, loadConfig } from './config.js';
import { ConfigError } from './errors.js';

/** What the functions that never run an agent need: no Runtime, no agents entry in their bundle. */
export interface ConnectionsDeployment {
  readonly config: Config;
  readonly connections: DynamoConnectionStore;
  readonly tracer: Tracer;
}

/**
 * For ws-connect, ws-disconnect and fan-out: the configuration now (a missing variable fails the
 * cold start), the connection store on first use. Keeping `#agents` out of these bundles keeps
 * them small and their cold starts short (docs/benchmarks.md, "Bundles").
 */
export function connectionsFor(
  require: readonly ConfigKey[] = ['TABLE_NAME'],
  env: Record<string, string | undefined> = process.env,
  options: { tracer?: Tracer } = {},
): () => Promise<ConnectionsDeployment> {
  const config = loadConfig(env, require);
  let built: ConnectionsDeployment | undefined;
  return async () => {
    if (!config.TABLE_NAME)
      throw new ConfigError([{ variable: 'TABLE_NAME', message: 'is required' }]);
    built ??= {
      config,
      connections: new DynamoConnectionStore({
        client: captureClient(
          createDynamoClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT }),
        ),
        tableName: config.TABLE_NAME,
        ttlSeconds: config.SESSION_TTL_SECONDS,
      }),
      tracer: options.tracer ?? noopTracer,
    };
    return built;
  };
}
