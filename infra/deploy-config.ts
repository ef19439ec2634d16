import * as z from 'zod';

/**
 * The knobs a first deploy meets (issue 27), kept apart from config.ts's so each file stays
 * readable: the model key's default name, who owns the HS256 secret, the account's Lambda
 * concurrency the queue triggers are sized for, customer-managed keys of the secrets, and where
 * approval requests go. The preflight (infra/preflight.ts) checks each against the account.
 */

/** The model key's Secrets Manager name when no model setting is given (README, Deploying). */
export const DEFAULT_MODEL_SECRET_NAME = 'agent-kernel/model-key';
/** The value of `modelSecretName` that deploys no model key (Bedrock only, or keyless models). */
export const NO_MODEL_SECRET = 'none';
/** New accounts often get 10 concurrent executions: the default plans for that. */
export const DEFAULT_ACCOUNT_CONCURRENCY = 10;
/** Left to the API-facing functions (authorizer, ws-*, http, stream) by the queue triggers. */
export const FRONT_RESERVE = 2;
/** The tag on the secrets the stack creates, its stack name (the preflight reads it). */
export const OWNER_TAG = 'agent-kernel:stack';
/** Lambda's SQS event-source maximum concurrency range. */
const MIN_TRIGGER = 2;

/** The queue triggers' maximum concurrency for an account of `quota` concurrent executions. */
export interface TriggerConcurrency {
  readonly worker: number;
  readonly fanout: number;
  readonly approvals: number;
}

/**
 * 40 % to the worker (it holds a turn for its whole length), 20 % to fan-out (short posts),
 * 5 % to approvals, each within [2, the pre-issue-27 values 50 / 20 / 5]: 10 → 4 / 2 / 2 (8,
 * two left for the API functions), 1000 → 50 / 20 / 5. Past 1000, raise them by name.
 */
export function triggerConcurrency(quota: number): TriggerConcurrency {
  const share = (fraction: number, max: number) =>
    Math.min(max, Math.max(MIN_TRIGGER, Math.floor(quota * fraction)));
  return { worker: share(0.4, 50), fanout: share(0.2, 20), approvals: share(0.05, 5) };
}

const arnList = (pattern: RegExp, what: string) =>
  z
    .union([z.array(z.string()), z.string()], {
      error: `must be a comma-separated list of ${what}`,
    })
    .transform((value) =>
      (Array.isArray(value) ? value : value.split(',')).map((item) => item.trim()).filter(Boolean),
    )
    .pipe(z.array(z.string().regex(pattern, `each must be ${what}`)));
export const concurrency = (why: string) =>
  z.coerce
    .number({ error: `must be a whole number 2..1000 (${why})` })
    .int(`must be a whole number 2..1000 (${why})`)
    .min(2, `must be 2..1000 (${why})`)
    .max(1000, `must be 2..1000 (${why})`)
    .optional();

/** Context keys of this file (merged into config.ts's schema). */
export const DEPLOY_CONTEXT = {
  jwtSecret: z
    .enum(['create', 'existing'], 'must be create (the stack makes the secret) or existing')
    .default('create'),
  accountConcurrency: z.coerce
    .number({ error: 'must be a whole number 10..100000 (your Lambda concurrent executions)' })
    .int('must be a whole number 10..100000 (your Lambda concurrent executions)')
    .min(10, "must be 10..100000 (Lambda's smallest account quota is 10)")
    .max(100_000, 'must be 10..100000 (your Lambda concurrent executions)')
    .default(DEFAULT_ACCOUNT_CONCURRENCY),
  fanoutMaxConcurrency: concurrency("Lambda's SQS maximum concurrency range"),
  approvalsMaxConcurrency: concurrency("Lambda's SQS maximum concurrency range"),
  secretKmsKeyArns: arnList(
    /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/,
    'a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>)',
  ).default([]),
  approvalEmail: z
    .union([z.array(z.string()), z.string()], {
      error: 'must be a comma-separated list of e-mail addresses',
    })
    .transform((value) =>
      (Array.isArray(value) ? value : value.split(',')).map((item) => item.trim()).filter(Boolean),
    )
    .pipe(z.array(z.email('each must be an e-mail address')).min(1))
    .optional(),
  approvalTopicArn: z
    .string()
    .regex(
      /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/,
      'must be a standard SNS topic ARN (arn:aws:sns:<region>:<account>:<name>)',
    )
    .optional(),
} as const;

/** Where approval requests are published: yours, the addresses given, or the alarm ones. */
export type ApprovalNotifications = { emails: readonly string[] } | { topicArn: string };

export interface DeploySettings {
  readonly accountConcurrency: number;
  readonly workerMaxConcurrency: number;
  readonly fanoutMaxConcurrency: number;
  readonly approvalsMaxConcurrency: number;
  readonly secretKmsKeyArns: readonly string[];
  readonly approvalNotifications?: ApprovalNotifications;
}

type DeployInput = {
  accountConcurrency: number;
  workerMaxConcurrency?: number | undefined;
  fanoutMaxConcurrency?: number | undefined;
  approvalsMaxConcurrency?: number | undefined;
  secretKmsKeyArns: string[];
  approvalEmail?: string[] | undefined;
  approvalTopicArn?: string | undefined;
  alarmEmail?: string[] | undefined;
};

/** The trigger sizes (given, else derived from accountConcurrency) and approval destination. */
export function deploySettings(c: DeployInput, fail: (message: string) => Error): DeploySettings {
  if (c.approvalEmail && c.approvalTopicArn) {
    throw fail('Set approvalEmail or approvalTopicArn, not both (subscribe to your topic).');
  }
  const derived = triggerConcurrency(c.accountConcurrency);
  const emails = c.approvalEmail ?? c.alarmEmail;
  const approvalNotifications: ApprovalNotifications | undefined = c.approvalTopicArn
    ? { topicArn: c.approvalTopicArn }
    : emails
      ? { emails }
      : undefined;
  return {
    accountConcurrency: c.accountConcurrency,
    workerMaxConcurrency: c.workerMaxConcurrency ?? derived.worker,
    fanoutMaxConcurrency: c.fanoutMaxConcurrency ?? derived.fanout,
    approvalsMaxConcurrency: c.approvalsMaxConcurrency ?? derived.approvals,
    secretKmsKeyArns: c.secretKmsKeyArns,
    ...(approvalNotifications ? { approvalNotifications } : {}),
  };
}

/** CDK's own context keys (feature flags, `aws:cdk:*`, the CLI's), never the kernel's. */
const CDK_OWNED = new Set(['cli-telemetry', 'acknowledged-issue-numbers', 'notices']);
export const isCdkOwned = (key: string) =>
  key.includes(':') || key.startsWith('@') || CDK_OWNED.has(key);

/** The known key closest to `key` (edit distance, case-insensitive). */
export function nearestKey(key: string, known: readonly string[]): string {
  let best = known[0] ?? '';
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = row;
  }
  return previous[b.length]!;
}
