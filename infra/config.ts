import * as z from 'zod';

/** Where the model provider's API key lives: only its name reaches the functions, never the value. */
export type ModelSecret = { secretName: string } | { parameterName: string };

/** hs256 is for development (a shared secret); jwks verifies tokens of a real identity provider. */
export type AuthConfig =
  | { mode: 'hs256'; secretName: string }
  | { mode: 'jwks'; jwksUrl: string; issuer: string; audience: string };

/** Where alarm and OK notifications go: a topic the stack creates for these addresses, or yours. */
export type AlarmNotifications = { emails: readonly string[] } | { topicArn: string };

export interface KernelConfig {
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
  /**
   * How long the worker holds streamed events before sending a batch (EVENT_BATCH_MAX_DELAY_MS,
   * default 100): longer windows send fewer SQS messages and posts per token for more latency.
   */
  readonly eventBatchMaxDelayMs?: number;
  readonly corsOrigins: readonly string[];
  /** Keep the table (and its sessions) when the stack is destroyed. */
  readonly retainTable: boolean;
  /** Bundle the pinned AWS SDK clients rather than use the Lambda runtime's copy. */
  readonly bundleAwsSdk: boolean;
  /** Absent: the alarms exist (and show on the dashboard) but notify nobody. */
  readonly alarmNotifications?: AlarmNotifications;
}

const list = z
  .union([z.array(z.string()), z.string()])
  .transform((value) =>
    (Array.isArray(value) ? value : value.split(',')).map((item) => item.trim()).filter(Boolean),
  );
const flag = z.union([
  z.boolean(),
  z.enum(['true', 'false']).transform((value) => value === 'true'),
]);
const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Context keys (cdk.json or `cdk -c key=value`); every one is optional. */
const ContextSchema = z.object({
  agentsEntry: z.string().min(1).optional(),
  agentNames: list.pipe(z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/)).min(1)).optional(),
  modelSecretName: z.string().min(1).optional(),
  modelParameterName: z.string().min(1).optional(),
  bedrockModelArns: list.default([]),
  deliveryMode: z.enum(['sqs-fanout', 'direct']).default('sqs-fanout'),
  authMode: z.enum(['hs256', 'jwks']).default('hs256'),
  jwtSecretName: z.string().min(1).default('agent-kernel/dev-jwt-secret'),
  jwksUrl: z.url().optional(),
  jwtIssuer: z.string().min(1).optional(),
  jwtAudience: z.string().min(1).optional(),
  logRetentionDays: positive(30),
  sessionTtlSeconds: positive(7 * 24 * 3600),
  pausedRunTtlSeconds: positive(24 * 3600),
  eventBatchMaxDelayMs: z.coerce.number().int().min(1).max(1_000).optional(),
  corsOrigins: list.default(['*']),
  retainTable: flag.default(true),
  // Bundled by default: a faster cold import and the SDK versions the tests ran (docs/benchmarks.md).
  bundleAwsSdk: flag.default(true),
  alarmEmail: list.pipe(z.array(z.email()).min(1)).optional(),
  alarmTopicArn: z
    .string()
    .regex(
      /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/,
      'an SNS topic ARN',
    )
    .optional(),
});

export const CONTEXT_KEYS = Object.keys(
  ContextSchema.shape,
) as (keyof typeof ContextSchema.shape)[];

/** Reads the configuration from context values; throws one error naming every bad key. */
export function configFromContext(context: Record<string, unknown>): KernelConfig {
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
    throw new Error(`Invalid agent kernel context: ${problems.join('; ')}`);
  }
  const c = parsed.data;
  if (c.modelSecretName && c.modelParameterName) {
    throw new Error('Set modelSecretName or modelParameterName, not both.');
  }
  if (c.alarmEmail && c.alarmTopicArn) {
    throw new Error(
      'Set alarmEmail or alarmTopicArn, not both (subscribe to your topic yourself).',
    );
  }
  let auth: AuthConfig;
  if (c.authMode === 'jwks') {
    if (!c.jwksUrl || !c.jwtIssuer || !c.jwtAudience) {
      throw new Error('authMode=jwks needs jwksUrl, jwtIssuer and jwtAudience.');
    }
    auth = { mode: 'jwks', jwksUrl: c.jwksUrl, issuer: c.jwtIssuer, audience: c.jwtAudience };
  } else {
    auth = { mode: 'hs256', secretName: c.jwtSecretName };
  }
  return {
    ...(c.agentsEntry ? { agentsEntry: c.agentsEntry } : {}),
    ...(c.agentNames ? { agentNames: c.agentNames } : {}),
    ...(c.modelSecretName ? { modelSecret: { secretName: c.modelSecretName } } : {}),
    ...(c.modelParameterName ? { modelSecret: { parameterName: c.modelParameterName } } : {}),
    bedrockModelArns: c.bedrockModelArns,
    deliveryMode: c.deliveryMode,
    auth,
    logRetentionDays: c.logRetentionDays,
    sessionTtlSeconds: c.sessionTtlSeconds,
    pausedRunTtlSeconds: c.pausedRunTtlSeconds,
    ...(c.eventBatchMaxDelayMs ? { eventBatchMaxDelayMs: c.eventBatchMaxDelayMs } : {}),
    corsOrigins: c.corsOrigins,
    retainTable: c.retainTable,
    bundleAwsSdk: c.bundleAwsSdk,
    ...(c.alarmEmail ? { alarmNotifications: { emails: c.alarmEmail } } : {}),
    ...(c.alarmTopicArn ? { alarmNotifications: { topicArn: c.alarmTopicArn } } : {}),
  };
}
