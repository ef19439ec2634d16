import { isPrincipal } from '../../transport/ids.js';
import type { Config, ConfigKey } from './config-schema.js';

/**
 * The configuration checked by hand, so a cold start builds no zod schema: each rule accepts
 * only values ConfigSchema certainly accepts, and gives what it would give. Anything else
 * (a bad value, an unusual spelling such as ` 30`, MODEL_PRICES) is left to ConfigSchema,
 * whose answer — and error messages — stand. test/unit/aws/config-fast.test.ts compares both.
 */
type Rule = (value: string) => { value: unknown } | undefined;

const text =
  (min = 0): Rule =>
  (value) =>
    value.length >= min ? { value } : undefined;
const TAB_OR_NEWLINE = /[\t\n\r]/;
const url: Rule = (value) =>
  value === value.trim() && !TAB_OR_NEWLINE.test(value) && URL.canParse(value)
    ? { value }
    : undefined;
const oneOf =
  (...values: string[]): Rule =>
  (value) =>
    values.includes(value) ? { value } : undefined;
const DIGITS = /^(?:0|[1-9][0-9]{0,14})$/;
const int =
  (min: number, max = Number.MAX_SAFE_INTEGER): Rule =>
  (value) => {
    if (!DIGITS.test(value)) return undefined;
    const n = Number(value);
    return n >= min && n <= max ? { value: n } : undefined;
  };
const NAMES = /^[A-Za-z0-9_-]{1,64}(,[A-Za-z0-9_-]{1,64})*$/;
const names =
  (star: boolean): Rule =>
  (value) =>
    (star && value === '*') || NAMES.test(value) ? { value: new Set(value.split(',')) } : undefined;
const principals: Rule = (value) => {
  const set = new Set(value.split(',').map((p) => p.trim()));
  return [...set].every(isPrincipal) ? { value: set } : undefined;
};
const principal: Rule = (value) => (isPrincipal(value) ? { value } : undefined);
const none: Rule = () => undefined;

/** Every variable of ConfigSchema, with its rule and default (a test keeps the lists equal). */
export const CONFIG_RULES: Record<ConfigKey, [Rule, unknown?]> = {
  AWS_REGION: [text(1), 'us-east-1'],
  TABLE_NAME: [text(3)],
  DYNAMODB_ENDPOINT: [url],
  SQS_ENDPOINT: [url],
  RUN_QUEUE_URL: [url],
  EVENTS_QUEUE_URL: [url],
  APPROVALS_QUEUE_URL: [url],
  APPROVAL_REQUESTS_QUEUE_URL: [url],
  WEBSOCKET_ENDPOINT: [url],
  DELIVERY_MODE: [oneOf('sqs-fanout', 'direct'), 'sqs-fanout'],
  EVENT_BATCH_MAX_DELAY_MS: [int(1, 1_000), 600],
  EVENT_BATCH_MIN_DELAY_MS: [int(1, 1_000)],
  SESSION_TTL_SECONDS: [int(1), 7 * 24 * 3600],
  PAUSED_RUN_TTL_SECONDS: [int(1), 24 * 3600],
  EVENTS_TTL_SECONDS: [int(1), 24 * 3600],
  EVENTS_FLUSH_MS: [int(0, 60_000), 1_500],
  RESUME_CLAIM_SECONDS: [int(1), 16 * 60],
  SESSION_LEASE_SECONDS: [int(1, 900), 30],
  RUN_DEADLINE_MARGIN_SECONDS: [int(1, 300), 20],
  JOB_CLAIM_GRACE_SECONDS: [int(0, 900), 30],
  JOB_MAX_RECEIVES: [int(1, 1000), 5],
  JOB_RETRY_BASE_SECONDS: [int(0, 900), 2],
  JOB_RETRY_MAX_SECONDS: [int(0, 43_200), 300],
  SYNC_RUN_TIMEOUT_MS: [int(1, 28_000), 25_000],
  AUTH_MODE: [oneOf('hs256', 'jwks', 'none'), 'jwks'],
  JWT_SECRET: [text(16)],
  JWT_SECRET_NAME: [text(1)],
  JWKS_URL: [url],
  JWT_ISSUER: [text()],
  JWT_AUDIENCE: [text()],
  LOG_LEVEL: [oneOf('DEBUG', 'INFO', 'WARN', 'ERROR'), 'INFO'],
  AGENT_NAMES: [names(false)],
  MCP_AGENT_TOOLS: [names(true)],
  APPROVER_PRINCIPALS: [principals],
  INVOKE_PRINCIPAL: [principal],
  QUOTAS: [oneOf('on', 'off'), 'off'],
  QUOTA_CONNECTIONS: [int(0)],
  QUOTA_RUNS_IN_FLIGHT: [int(0)],
  QUOTA_RUNS_PER_MINUTE: [int(0)],
  QUOTA_TOKENS_PER_DAY: [int(0)],
  QUOTA_QUEUED_LEASE_SECONDS: [int(60, 86_400), 1_800],
  QUOTA_CONNECTION_LEASE_SECONDS: [int(60, 86_400), 7_500],
  // A JSON table: rare, and checked in depth by its schema.
  MODEL_PRICES: [none],
  MODEL_SECRET_NAME: [text(1)],
  MODEL_SECRET_PARAMETER: [text(1)],
  MODEL_API_KEY_ENV: [text(), 'OPENAI_API_KEY'],
  SECRETS_MANAGER_ENDPOINT: [url],
  SSM_ENDPOINT: [url],
};

/** The variables' names, without building the schema. */
export const CONFIG_KEYS: ReadonlySet<string> = new Set(Object.keys(CONFIG_RULES));

/** What ConfigSchema would give for `present` (known, non-empty variables), or undefined: ask it. */
export function fastConfig(present: Record<string, string | undefined>): Config | undefined {
  const config: Record<string, unknown> = {};
  for (const [key, [rule, fallback]] of Object.entries(CONFIG_RULES)) {
    const raw = present[key];
    if (raw === undefined) {
      if (fallback !== undefined) config[key] = fallback;
      continue;
    }
    const checked = rule(raw);
    if (checked === undefined) return undefined;
    config[key] = checked.value;
  }
  return config as Config;
}
