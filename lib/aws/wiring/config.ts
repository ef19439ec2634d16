import * as z from 'zod';
import { ModelPricesSchema } from '../../app/model-prices.js';
import { Redactor } from '../../tracing/redact.js';
import { isPrincipal, PRINCIPAL_RULE } from '../../transport/ids.js';
import { ConfigError } from './errors.js';

const principals = z
  .string()
  .transform((list) => new Set(list.split(',').map((p) => p.trim())))
  .refine((set) => [...set].every(isPrincipal), `must list principals (${PRINCIPAL_RULE})`);

const limit = z.coerce.number().int().nonnegative();
const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * Everything the functions read from the environment, checked once at cold start. Each function
 * names the variables it cannot work without (`require`), so a missing one fails with its name.
 */
export const ConfigSchema = z.object({
  AWS_REGION: z.string().min(1).default('us-east-1'),
  TABLE_NAME: z.string().min(3).optional(),
  /** Endpoint overrides: the local stack and tests point the real SDK clients at emulators. */
  DYNAMODB_ENDPOINT: z.url().optional(),
  SQS_ENDPOINT: z.url().optional(),
  RUN_QUEUE_URL: z.url().optional(),
  EVENTS_QUEUE_URL: z.url().optional(),
  APPROVALS_QUEUE_URL: z.url().optional(),
  APPROVAL_REQUESTS_QUEUE_URL: z.url().optional(),
  /** The @connections endpoint of the WebSocket API stage. */
  WEBSOCKET_ENDPOINT: z.url().optional(),
  DELIVERY_MODE: z.enum(['sqs-fanout', 'direct']).default('sqs-fanout'),
  /**
   * How long the worker holds streamed events before sending a batch, at most (the adaptive
   * window's ceiling; a message's first text delta goes at once): docs/benchmarks.md#delivery.
   */
  EVENT_BATCH_MAX_DELAY_MS: z.coerce.number().int().min(1).max(1_000).default(600),
  /** The adaptive window's floor (default 50 ms, or the ceiling if lower). */
  EVENT_BATCH_MIN_DELAY_MS: z.coerce.number().int().min(1).max(1_000).optional(),
  SESSION_TTL_SECONDS: seconds(7 * 24 * 3600),
  PAUSED_RUN_TTL_SECONDS: seconds(24 * 3600),
  /** How long a run's delivered events are kept for reconnects (stored events, issue #30). */
  EVENTS_TTL_SECONDS: seconds(24 * 3600),
  /**
   * How long a resume's claim on a paused run holds; a resume whose function died (timeout,
   * crash) blocks the run only this long. Keep it above the longest function timeout (15 min):
   * a claim that lapses while its holder still runs lets a second resume repeat its tool calls.
   */
  RESUME_CLAIM_SECONDS: seconds(16 * 60),
  /**
   * A session's turn lease (DynamoSessionLock), renewed every third of it while the turn runs;
   * a crashed holder blocks the session's next turn this long. Tests that kill workers shorten it.
   */
  SESSION_LEASE_SECONDS: z.coerce.number().int().min(1).max(900).default(30),
  /**
   * The worker stops a run this long before the function's deadline, leaving time to send the
   * `run-timeout` event, record the run and make its job visible again for a retry.
   */
  RUN_DEADLINE_MARGIN_SECONDS: z.coerce.number().int().min(1).max(300).default(20),
  /**
   * How long a job's claim outlives the invocation's deadline: no redelivery runs a job while its
   * first run may still be going; a crashed one is taken over this long after its deadline.
   */
  JOB_CLAIM_GRACE_SECONDS: z.coerce.number().int().min(0).max(900).default(30),
  /** The run queue's maxReceiveCount: the last receive reports a retryable failure, not retries. */
  JOB_MAX_RECEIVES: z.coerce.number().int().min(1).max(1000).default(5),
  /** A failed job is visible again after base × 2^(receives − 1) seconds, at most the max. */
  JOB_RETRY_BASE_SECONDS: z.coerce.number().int().min(0).max(900).default(2),
  JOB_RETRY_MAX_SECONDS: z.coerce.number().int().min(0).max(43_200).default(300),
  /** Synchronous HTTP runs must end inside API Gateway's 29 s. */
  SYNC_RUN_TIMEOUT_MS: z.coerce.number().int().positive().max(28_000).default(25_000),
  AUTH_MODE: z.enum(['hs256', 'jwks', 'none']).default('jwks'),
  JWT_SECRET: z.string().min(16).optional(),
  /** On Lambda: the Secrets Manager secret holding the HS256 secret, read at cold start. */
  JWT_SECRET_NAME: z.string().min(1).optional(),
  JWKS_URL: z.url().optional(),
  JWT_ISSUER: z.string().optional(),
  JWT_AUDIENCE: z.string().optional(),
  /** Read by the Powertools logger (tracing has its own: AGENT_KERNEL_*, lib/tracing/config). */
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
  /**
   * The model provider key, read at cold start (lib/aws/wiring/model-secret.ts): a Secrets Manager secret or
   * an SSM SecureString parameter, by name (the stack grants read access to one of them).
   */
  /**
   * The agents a WebSocket `run` may name, comma-separated (the stack lists the agents entry's):
   * ws-message refuses others before anything is queued without loading the agents itself.
   * Unset: ws-message lets any name through and the worker refuses an unknown one.
   */
  AGENT_NAMES: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}(,[A-Za-z0-9_-]{1,64})*$/, 'a comma-separated list of agent names')
    .transform((names) => new Set(names.split(',')))
    .optional(),
  /**
   * Agents whose own ToolSpecs `/mcp` also lists and calls (comma-separated, or `*` for all):
   * a deployer's opt-in. Unset: only the agents themselves are MCP tools.
   */
  MCP_AGENT_TOOLS: z
    .string()
    .regex(
      /^(\*|[A-Za-z0-9_-]{1,64}(,[A-Za-z0-9_-]{1,64})*)$/,
      '`*` or comma-separated agent names',
    )
    .transform((names) => new Set(names.split(',')))
    .optional(),
  /**
   * Back-office principals (comma-separated) that may decide any session's paused runs from the
   * approvals queue, acting for the session's owner. Unset: only owners decide.
   */
  APPROVER_PRINCIPALS: principals.optional(),
  /**
   * The principal a direct invoke acts as when its payload names none (IAM authenticated the
   * caller). Unset: such an invoke is refused (`unauthorized`), never run without an owner.
   */
  INVOKE_PRINCIPAL: z.string().refine(isPrincipal, `must be ${PRINCIPAL_RULE}`).optional(),
  /**
   * Fair use per principal (lib/app/fair-use.ts): `on` meters every principal's runs, tokens
   * and connections (`GET /usage`) and enforces the QUOTA_* limits; an unset limit is none.
   */
  QUOTAS: z.enum(['on', 'off']).default('off'),
  QUOTA_CONNECTIONS: limit.optional(),
  QUOTA_RUNS_IN_FLIGHT: limit.optional(),
  QUOTA_RUNS_PER_MINUTE: limit.optional(),
  QUOTA_TOKENS_PER_DAY: limit.optional(),
  /** How long a queued run counts in flight without its end reported (queue wait + turn). */
  QUOTA_QUEUED_LEASE_SECONDS: z.coerce.number().int().min(60).max(86_400).default(1_800),
  /** A connection's lease: API Gateway ends every WebSocket connection after 2 hours. */
  QUOTA_CONNECTION_LEASE_SECONDS: z.coerce.number().int().min(60).max(86_400).default(7_500),
  /**
   * The run timeline's price table (lib/app/model-prices.ts), JSON: `{"<agent>|default":
   * {"model", "inputPerMillion", "outputPerMillion"}}` in USD; unset: gpt-4.1-mini's list price.
   */
  MODEL_PRICES: ModelPricesSchema.optional(),
  MODEL_SECRET_NAME: z.string().min(1).optional(),
  MODEL_SECRET_PARAMETER: z.string().min(1).optional(),
  /** The variable a plain-string model secret is put in (a JSON object names its own). */
  MODEL_API_KEY_ENV: z.string().default('OPENAI_API_KEY'),
  SECRETS_MANAGER_ENDPOINT: z.url().optional(),
  SSM_ENDPOINT: z.url().optional(),
});

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigKey = keyof Config;

export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  require: readonly ConfigKey[] = [],
): Config {
  // Empty strings are what CloudFormation leaves for unset values: treat them as absent.
  const present = Object.fromEntries(
    Object.entries(env).filter(([key, value]) => value !== '' && key in ConfigSchema.shape),
  );
  const parsed = ConfigSchema.safeParse(present);
  const problems: { variable: string; message: string }[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push({ variable: String(issue.path[0] ?? '?'), message: issue.message });
    }
  } else {
    for (const key of require) {
      if (parsed.data[key] === undefined) problems.push({ variable: key, message: 'is required' });
    }
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  if (parsed.data.MODEL_SECRET_NAME && parsed.data.MODEL_SECRET_PARAMETER) {
    throw bothModelSecretsError();
  }
  const keyEnv = modelKeyVariableProblem(parsed.data.MODEL_API_KEY_ENV);
  if (keyEnv) throw new ConfigError([{ variable: 'MODEL_API_KEY_ENV', message: keyEnv }]);
  if (
    parsed.data.AUTH_MODE === 'hs256' &&
    !parsed.data.JWT_SECRET &&
    !parsed.data.JWT_SECRET_NAME
  ) {
    throw new ConfigError([
      { variable: 'JWT_SECRET', message: 'is required when AUTH_MODE=hs256 (or JWT_SECRET_NAME)' },
    ]);
  }
  return parsed.data;
}

/** The model secret comes from a Secrets Manager secret or an SSM parameter, not both. */
export function bothModelSecretsError(): ConfigError {
  return new ConfigError([
    { variable: 'MODEL_SECRET_NAME', message: 'is set' },
    {
      variable: 'MODEL_SECRET_PARAMETER',
      message: 'is set too (the model secret comes from one of them)',
    },
  ]);
}

const RESERVED_VARIABLE = /^(?:AWS_|_X_AMZN|LAMBDA_)/;
const probe = new Redactor();

/**
 * Why `name` may not receive a value of the model secret, or undefined when it may: a plain
 * upper-case name, not one Lambda or the kernel reads, and one the tracing redactor treats as a
 * secret (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, …), so `secretsFromEnv` hides its value.
 */
export function modelKeyVariableProblem(name: string): string | undefined {
  if (RESERVED_VARIABLE.test(name)) return 'is reserved (AWS_*, _X_AMZN*, LAMBDA_*)';
  if (!/^[A-Z][A-Z0-9_]*$/.test(name)) return 'is not a variable name (A-Z, 0-9, _)';
  if (name in ConfigSchema.shape) return 'is a variable of the kernel itself';
  if (!probe.isSensitiveKey(name)) {
    return 'is not a secret-shaped name (end it in _API_KEY, _TOKEN, _SECRET or _PASSWORD)';
  }
  return undefined;
}
