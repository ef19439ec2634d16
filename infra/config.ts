import * as z from 'zod';
import {
  between,
  endpoint,
  flag,
  InvalidContextError,
  list,
  origin,
  retention,
  secretName,
  YEAR,
} from './config-fields.js';
import { AGENT_MEMORY_MB, WORKER_MEMORY_MB } from './config-memory.js';
import { type QuotaSettings, quotaLimit, quotasFromContext } from './config-quotas.js';
import { TRACING_BACKENDS, type TracingSettings, tracingFromContext } from './config-tracing.js';
import {
  concurrency,
  DEFAULT_MODEL_SECRET_NAME,
  DEPLOY_CONTEXT,
  type DeploySettings,
  deploySettings,
  isCdkOwned,
  NO_MODEL_SECRET,
  nearestKey,
} from './deploy-config.js';

export { InvalidContextError, LOG_RETENTION_DAYS } from './config-fields.js';
export type { QuotaSettings } from './config-quotas.js';
export type { TracingSettings } from './config-tracing.js';

/** Where the model provider's API key lives: only its name reaches the functions, never the value. */
export type ModelSecret = { secretName: string } | { parameterName: string };

/** hs256 is for development (a shared secret); jwks verifies tokens of a real identity provider. */
export type AuthConfig =
  | {
      mode: 'hs256';
      secretName: string;
      /** The stack creates (and owns) it. */
      create: boolean;
      issuer?: string;
      audience?: string;
    }
  | { mode: 'jwks'; jwksUrl: string; issuer: string; audience: string };

/** Where alarm and OK notifications go: a topic the stack creates for these addresses, or yours. */
export type AlarmNotifications = { emails: readonly string[] } | { topicArn: string };

export interface KernelConfig extends DeploySettings {
  /** The user's agents module; absent: package.json "imports" `#agents` decides. */
  readonly agentsEntry?: string;
  /**
   * The agents' names, for ws-message to refuse an unknown one before queuing (AGENT_NAMES).
   * `npm run synth` / `cdk deploy` list them from the agents entry (infra/app.ts); absent: the
   * worker refuses an unknown agent instead.
   */
  readonly agentNames?: readonly string[];
  readonly modelSecret?: ModelSecret;
  /** Bedrock model (or inference profile) ARNs the agent-running functions may invoke. */
  readonly bedrockModelArns: readonly string[];
  readonly deliveryMode: 'sqs-fanout' | 'direct';
  readonly auth: AuthConfig;
  readonly logRetentionDays: number;
  readonly sessionTtlSeconds: number;
  readonly pausedRunTtlSeconds: number;
  /** How long a run's streamed events are kept for reconnects (EVENTS_TTL_SECONDS). */
  readonly eventsTtlSeconds: number;
  /**
   * The ceiling of the worker's adaptive batching window (EVENT_BATCH_MAX_DELAY_MS, default
   * 600): higher sends fewer SQS messages and posts per turn for a coarser cadence.
   */
  readonly eventBatchMaxDelayMs?: number;
  readonly corsOrigins: readonly string[];
  /** Keep the table (and its sessions) when the stack is destroyed. */
  readonly retainTable: boolean;
  /** Bundle the pinned AWS SDK clients rather than use the Lambda runtime's copy. */
  readonly bundleAwsSdk: boolean;
  /** Absent: the alarms exist (and show on the dashboard) but notify nobody. */
  readonly alarmNotifications?: AlarmNotifications;
  /**
   * The account-and-region-wide API Gateway CloudWatch Logs role that WebSocket access logging
   * needs: `create` (the stack sets it), `existing` (already set), `none` (WebSocket logging off).
   */
  readonly apiGatewayAccountRole: ApiGatewayAccountRole;
  /** DynamoDB deletion protection on the table (turn off for throwaway stacks). */
  readonly tableDeletionProtection: boolean;
  /** The Lambda runtime of every function. */
  readonly lambdaRuntime: LambdaRuntime;
  /** Serve the playground page at the StreamUrl's root (`GET /`): default off. */
  readonly playground?: boolean;
  /** Memory (MB) of the functions that run agents (invoke, http, worker). */
  readonly agentMemoryMb: number;
  /** Memory (MB) of the worker (infra/config-memory.ts: sized from bench:memory). */
  readonly workerMemoryMb: number;
  /** The worker's timeout (s); the run queue's visibility is six times it. */
  readonly workerTimeoutSeconds: number;
  /** Messages per fan-out invocation (events queue batch size). */
  readonly fanoutBatchSize: number;
  /** Receives before a message is dead-lettered, on every queue (the worker's JOB_MAX_RECEIVES). */
  readonly maxReceiveCount: number;
  readonly tracing: TracingSettings;
  /** Fair use per principal: QUOTAS and the QUOTA_* limits of the front-door functions. */
  readonly quotas: QuotaSettings;
  /**
   * The stream function's reserved concurrency: a Function URL has no API Gateway throttle, so
   * this caps its concurrent streams (and keeps them from starving the other functions).
   */
  readonly streamReservedConcurrency?: number;
  /** Agents whose own tools `/mcp` exposes (MCP_AGENT_TOOLS on the stream function; `*`: all). */
  readonly mcpAgentTools?: readonly string[];
}

export type ApiGatewayAccountRole = 'create' | 'existing' | 'none';
export type LambdaRuntime = 'nodejs24.x' | 'nodejs22.x';
/** One line to change the runtime of every function (bench/bundles compares cold imports). */
export const DEFAULT_LAMBDA_RUNTIME: LambdaRuntime = 'nodejs24.x';

/** Context keys (cdk.json or `cdk -c key=value`); every one is optional. */
const ContextSchema = z.object({
  agentsEntry: z.string('must be the path of your agents module').min(1).optional(),
  agentNames: list
    .pipe(
      z
        .array(
          z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'each must be 1-64 letters, digits, _ or -'),
        )
        .min(1, 'must name at least one agent'),
    )
    .optional(),
  modelSecretName: secretName.optional(),
  modelParameterName: z
    .string()
    .regex(/^\/?[A-Za-z0-9_.\-/]{1,2048}$/, 'must be an SSM parameter name (letters, digits, _.-/)')
    .optional(),
  bedrockModelArns: list
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^arn:aws[a-z-]*:bedrock:[a-z0-9-]*:\d{0,12}:[a-z-]+\/\S+$/,
            'each must be a Bedrock model or inference-profile ARN (arn:aws:bedrock:…)',
          ),
      ),
    )
    .default([]),
  deliveryMode: z
    .enum(['sqs-fanout', 'direct'], 'must be sqs-fanout or direct')
    .default('sqs-fanout'),
  authMode: z.enum(['hs256', 'jwks'], 'must be hs256 or jwks').default('hs256'),
  jwtSecretName: secretName.default('agent-kernel/dev-jwt-secret'),
  jwksUrl: z.url({ protocol: /^https$/, error: 'must be an https:// URL' }).optional(),
  // API Gateway's JWT authorizer takes only https issuers.
  jwtIssuer: z.url({ protocol: /^https$/, error: 'must be an https:// URL' }).optional(),
  jwtAudience: z.string('must be the audience (aud) of your tokens').min(1).optional(),
  logRetentionDays: retention,
  sessionTtlSeconds: between(60, 10 * YEAR, 7 * 24 * 3600, 'a minute to ten years'),
  pausedRunTtlSeconds: between(60, 10 * YEAR, 24 * 3600, 'a minute to ten years'),
  eventsTtlSeconds: between(60, 10 * YEAR, 24 * 3600, 'a minute to ten years'),
  eventBatchMaxDelayMs: z.coerce
    .number({ error: 'must be a whole number 1..1000 ms' })
    .int('must be a whole number 1..1000 ms')
    .min(1, 'must be 1..1000 ms')
    .max(1_000, 'must be 1..1000 ms')
    .optional(),
  corsOrigins: list.pipe(z.array(origin)).default(['*']),
  retainTable: flag.default(true),
  // Bundled by default: a faster cold import and the SDK versions the tests ran (docs/benchmarks.md).
  bundleAwsSdk: flag.default(true),
  alarmEmail: list.pipe(z.array(z.email('each must be an e-mail address')).min(1)).optional(),
  alarmTopicArn: z
    .string()
    .regex(
      /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/,
      'must be an SNS topic ARN (arn:aws:sns:<region>:<account>:<name>)',
    )
    .optional(),
  apiGatewayAccountRole: z
    .enum(['create', 'existing', 'none'], 'must be create, existing or none')
    .default('create'),
  tableDeletionProtection: flag.default(true),
  playground: flag.default(false),
  lambdaRuntime: z
    .enum(['nodejs24.x', 'nodejs22.x'], 'must be nodejs24.x or nodejs22.x')
    .default(DEFAULT_LAMBDA_RUNTIME),
  agentMemoryMb: between(128, 10_240, AGENT_MEMORY_MB, "Lambda's memory range, MB"),
  workerMemoryMb: between(128, 10_240, WORKER_MEMORY_MB, "Lambda's memory range, MB"),
  // Lambda allows 900 s; below 60 s the run deadline margin (20 s) leaves a turn too little.
  workerTimeoutSeconds: between(60, 900, 900, "Lambda's 900 s limit; 60 s for the deadline margin"),
  // Absent: sized for accountConcurrency (deploy-config.ts).
  workerMaxConcurrency: concurrency("Lambda's SQS maximum concurrency range"),
  fanoutBatchSize: between(1, 10, 10, "Lambda's batch size limit for a FIFO queue"),
  // SQS allows 1..1000; below 5 a throttled consumer dead-letters messages (AWS's advice).
  maxReceiveCount: between(5, 1000, 5, 'SQS allows up to 1000; under 5 throttling dead-letters'),
  tracing: list
    .pipe(z.array(z.enum(TRACING_BACKENDS, `each must be ${TRACING_BACKENDS.join(', ')}`)).min(1))
    .default(['cloudwatch']),
  tracingSecretName: secretName.optional(),
  otlpEndpoint: endpoint.optional(),
  langfuseBaseUrl: endpoint.optional(),
  logfireBaseUrl: endpoint.optional(),
  traceloopBaseUrl: endpoint.optional(),
  ...DEPLOY_CONTEXT,
  quotas: flag.default(true),
  quotaConnections: quotaLimit(20),
  quotaRunsInFlight: quotaLimit(10),
  quotaRunsPerMinute: quotaLimit(60),
  quotaTokensPerDay: quotaLimit('none'),
  // Reserved concurrency takes from the account's pool (1000 by default, 100 kept unreserved).
  streamReservedConcurrency: z.coerce
    .number({ error: "must be a whole number 1..900 (the account's reservable concurrency)" })
    .int('must be a whole number')
    .min(1, "must be 1..900 (the account's reservable concurrency)")
    .max(900, "must be 1..900 (the account's reservable concurrency)")
    .optional(),
  mcpAgentTools: list
    .pipe(
      z.array(z.string().regex(/^(\*|[A-Za-z0-9_-]{1,64})$/, 'each must be * or an agent name')),
    )
    .optional(),
});

export const CONTEXT_KEYS = Object.keys(
  ContextSchema.shape,
) as (keyof typeof ContextSchema.shape)[];

/** Keys that are not knobs of configFromContext but are the app's (infra/app.ts). */
const APP_KEYS = ['stackName'];

/** A misspelt key would be ignored silently: name it, and the known key it is closest to. */
function unknownKeysError(context: Record<string, unknown>): InvalidContextError | undefined {
  const known = [...CONTEXT_KEYS, ...APP_KEYS];
  const unknown = Object.keys(context).filter(
    (key) => !known.includes(key as never) && !isCdkOwned(key),
  );
  if (unknown.length === 0) return undefined;
  const named = unknown.map((key) => `${key} (did you mean ${nearestKey(key, known)}?)`);
  return new InvalidContextError(
    `Invalid agent kernel context: unknown key ${named.join(', ')}; the keys are listed in README, Deploying.`,
  );
}

/** Reads the configuration from context values; throws one error naming every bad key. */
export function configFromContext(context: Record<string, unknown>): KernelConfig {
  const unknown = unknownKeysError(context);
  if (unknown) throw unknown;
  const present = Object.fromEntries(
    CONTEXT_KEYS.filter((key) => context[key] !== undefined && context[key] !== '').map((key) => [
      key,
      context[key],
    ]),
  );
  const parsed = ContextSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${String(issue.path[0])}: ${issue.message}`,
    );
    throw new InvalidContextError(`Invalid agent kernel context: ${problems.join('; ')}`);
  }
  const c = parsed.data;
  if (c.modelSecretName && c.modelSecretName !== NO_MODEL_SECRET && c.modelParameterName) {
    throw new InvalidContextError('Set modelSecretName or modelParameterName, not both.');
  }
  if (c.alarmEmail && c.alarmTopicArn) {
    throw new InvalidContextError(
      'Set alarmEmail or alarmTopicArn, not both (subscribe to your topic yourself).',
    );
  }
  let auth: AuthConfig;
  if (c.authMode === 'jwks') {
    if (!c.jwksUrl || !c.jwtIssuer || !c.jwtAudience) {
      throw new InvalidContextError('authMode=jwks needs jwksUrl, jwtIssuer and jwtAudience.');
    }
    auth = { mode: 'jwks', jwksUrl: c.jwksUrl, issuer: c.jwtIssuer, audience: c.jwtAudience };
  } else {
    // Optional here: the token authorizer checks `iss` / `aud` only when they are set.
    auth = {
      mode: 'hs256',
      secretName: c.jwtSecretName,
      create: c.jwtSecret === 'create',
      ...(c.jwtIssuer ? { issuer: c.jwtIssuer } : {}),
      ...(c.jwtAudience ? { audience: c.jwtAudience } : {}),
    };
  }
  return {
    ...(c.agentsEntry ? { agentsEntry: c.agentsEntry } : {}),
    ...(c.agentNames ? { agentNames: c.agentNames } : {}),
    ...modelSecretOf(c),
    bedrockModelArns: c.bedrockModelArns,
    deliveryMode: c.deliveryMode,
    auth,
    logRetentionDays: c.logRetentionDays,
    sessionTtlSeconds: c.sessionTtlSeconds,
    pausedRunTtlSeconds: c.pausedRunTtlSeconds,
    eventsTtlSeconds: c.eventsTtlSeconds,
    ...(c.eventBatchMaxDelayMs ? { eventBatchMaxDelayMs: c.eventBatchMaxDelayMs } : {}),
    corsOrigins: c.corsOrigins,
    retainTable: c.retainTable,
    bundleAwsSdk: c.bundleAwsSdk,
    ...(c.alarmEmail ? { alarmNotifications: { emails: c.alarmEmail } } : {}),
    ...(c.alarmTopicArn ? { alarmNotifications: { topicArn: c.alarmTopicArn } } : {}),
    apiGatewayAccountRole: c.apiGatewayAccountRole,
    tableDeletionProtection: c.tableDeletionProtection,
    ...(c.playground ? { playground: true } : {}),
    lambdaRuntime: c.lambdaRuntime,
    agentMemoryMb: c.agentMemoryMb,
    workerMemoryMb: c.workerMemoryMb,
    workerTimeoutSeconds: c.workerTimeoutSeconds,
    fanoutBatchSize: c.fanoutBatchSize,
    maxReceiveCount: c.maxReceiveCount,
    tracing: tracingFromContext(c),
    ...deploySettings(c, (message) => new InvalidContextError(message)),
    quotas: quotasFromContext(c),
    ...(c.streamReservedConcurrency === undefined
      ? {}
      : { streamReservedConcurrency: c.streamReservedConcurrency }),
    ...(c.mcpAgentTools?.length ? { mcpAgentTools: c.mcpAgentTools } : {}),
  };
}

/**
 * The model key: the one named, else DEFAULT_MODEL_SECRET_NAME unless Bedrock (through the role)
 * is configured: a default deploy never leaves the agents without a credential. `none`: no key.
 */
function modelSecretOf(c: z.output<typeof ContextSchema>): { modelSecret?: ModelSecret } {
  if (c.modelParameterName) return { modelSecret: { parameterName: c.modelParameterName } };
  if (c.modelSecretName === NO_MODEL_SECRET) return {};
  if (c.modelSecretName) return { modelSecret: { secretName: c.modelSecretName } };
  if (c.bedrockModelArns.length > 0) return {};
  return { modelSecret: { secretName: DEFAULT_MODEL_SECRET_NAME } };
}

/** CloudFormation stack names: a letter, then letters, digits and hyphens (128 at most). */
export function stackNameFromContext(value: unknown): string {
  if (value === undefined || value === '') return 'AgentKernel';
  if (typeof value !== 'string' || !/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(value)) {
    throw new InvalidContextError(
      'Invalid agent kernel context: stackName: must start with a letter and hold only letters, digits and hyphens (128 at most)',
    );
  }
  return value;
}
