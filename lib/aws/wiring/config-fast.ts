import { checkModelPrices } from '../../app/model-prices-check.js';
import {
  type HandIssue,
  type NumberRule,
  numberIssues,
  oneOf as oneOfWords,
  shortString,
} from '../../core/schema-words.js';
import { isPrincipal, PRINCIPAL_RULE } from '../../transport/ids.js';
import type { Config, ConfigKey } from './config-schema.js';

/**
 * The configuration checked by hand, completely: each rule takes what ConfigSchema takes, gives
 * what it gives and refuses the rest with its messages (test/unit/aws/config-fast.test.ts
 * compares both on generated environments), so no function needs zod to read its variables.
 */
type Rule = (value: string) => { value: unknown } | { issues: HandIssue[] };

const fail = (message: string) => ({ issues: [{ path: [], message }] });
const text =
  (min = 0): Rule =>
  (value) =>
    value.length >= min ? { value } : fail(shortString(min));
const TABS_AND_NEWLINES = /[\t\n\r]/g;
// As z.url(): the trimmed value must parse; tabs and newlines (which the parser skips) go.
const url: Rule = (value) => {
  const trimmed = value.trim();
  return URL.canParse(trimmed)
    ? { value: trimmed.replace(TABS_AND_NEWLINES, '') }
    : fail('Invalid URL');
};
const oneOf =
  (...values: string[]): Rule =>
  (value) =>
    values.includes(value) ? { value } : fail(oneOfWords(values));
// As z.coerce.number(): Number() of the text (so ` 30`, `1e3` and `0x10` are numbers too).
const int =
  (min: NumberRule['min'], max?: number): Rule =>
  (value) => {
    const n = Number(value);
    const issues = numberIssues(n, { int: true, min, max });
    return issues.length > 0 ? { issues } : { value: n };
  };
const positive = (max?: number) => int('positive', max);
const NAMES = /^[A-Za-z0-9_-]{1,64}(,[A-Za-z0-9_-]{1,64})*$/;
const names =
  (star: boolean): Rule =>
  (value) =>
    (star && value === '*') || NAMES.test(value)
      ? { value: new Set(value.split(',')) }
      : fail(star ? '`*` or comma-separated agent names' : 'a comma-separated list of agent names');
const principals: Rule = (value) => {
  const set = new Set(value.split(',').map((p) => p.trim()));
  return [...set].every(isPrincipal)
    ? { value: set }
    : fail(`must list principals (${PRINCIPAL_RULE})`);
};
const principal: Rule = (value) =>
  isPrincipal(value) ? { value } : fail(`must be ${PRINCIPAL_RULE}`);
const prices: Rule = (value) => checkModelPrices(value);

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
  SESSION_TTL_SECONDS: [positive(), 7 * 24 * 3600],
  PAUSED_RUN_TTL_SECONDS: [positive(), 24 * 3600],
  EVENTS_TTL_SECONDS: [positive(), 24 * 3600],
  EVENTS_FLUSH_MS: [int(0, 60_000), 1_500],
  RESUME_CLAIM_SECONDS: [positive(), 16 * 60],
  SESSION_LEASE_SECONDS: [int(1, 900), 30],
  RUN_DEADLINE_MARGIN_SECONDS: [int(1, 300), 20],
  JOB_CLAIM_GRACE_SECONDS: [int(0, 900), 30],
  JOB_MAX_RECEIVES: [int(1, 1000), 5],
  JOB_RETRY_BASE_SECONDS: [int(0, 900), 2],
  JOB_RETRY_MAX_SECONDS: [int(0, 43_200), 300],
  SYNC_RUN_TIMEOUT_MS: [positive(28_000), 25_000],
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
  MODEL_PRICES: [prices],
  MODEL_SECRET_NAME: [text(1)],
  MODEL_SECRET_PARAMETER: [text(1)],
  MODEL_API_KEY_ENV: [text(), 'OPENAI_API_KEY'],
  SECRETS_MANAGER_ENDPOINT: [url],
  SSM_ENDPOINT: [url],
};

/** The variables' names, without building the schema. */
export const CONFIG_KEYS: ReadonlySet<string> = new Set(Object.keys(CONFIG_RULES));

/** What ConfigSchema.safeParse answers, as far as loadConfig reads it. */
export type ParsedConfig =
  | { success: true; data: Config }
  | { success: false; error: { issues: readonly { path: PropertyKey[]; message: string }[] } };

/** What ConfigSchema.safeParse answers for `present` (known, non-empty variables). */
export function handConfig(present: Record<string, string | undefined>): ParsedConfig {
  const config: Record<string, unknown> = {};
  const issues: HandIssue[] = [];
  for (const [key, [rule, fallback]] of Object.entries(CONFIG_RULES)) {
    const raw = present[key];
    if (raw === undefined) {
      if (fallback !== undefined) config[key] = fallback;
      continue;
    }
    const checked = rule(raw);
    if ('issues' in checked) {
      for (const issue of checked.issues) issues.push({ ...issue, path: [key, ...issue.path] });
    } else config[key] = checked.value;
  }
  return issues.length > 0
    ? { success: false, error: { issues } }
    : { success: true, data: config as Config };
}
