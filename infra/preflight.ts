import type { KernelConfig } from './config.js';
import { FRONT_RESERVE, OWNER_TAG, triggerConcurrency } from './deploy-config.js';

/**
 * What `npm run deploy` asks the account before `cdk deploy` (issue 27): each check answers from
 * the deployer's own credentials, and a failed one says the exact command that fixes it. The AWS
 * calls sit behind `AccountApi` (infra/account-api.ts: the real SDK clients).
 */
export const CHECKS = ['jwt-secret', 'model-key', 'alarms', 'concurrency'] as const;
export type CheckName = (typeof CHECKS)[number];

export type SecretState =
  | { readonly exists: false }
  | {
      readonly exists: true;
      /** Scheduled for deletion (a deleted stack's secret, inside its recovery window). */
      readonly deleted: boolean;
      readonly tags: Readonly<Record<string, string>>;
      /** Absent or `alias/aws/secretsmanager`: the AWS managed key. */
      readonly kmsKeyId?: string;
    };

export interface AccountApi {
  describeSecret(name: string): Promise<SecretState>;
  parameterExists(name: string): Promise<boolean>;
  /** Lambda GetAccountSettings: the account-region quota and what no function reserved. */
  lambdaConcurrency(): Promise<{ limit: number; unreserved: number }>;
}

export interface CheckResult {
  readonly check: CheckName;
  readonly status: 'ok' | 'failed' | 'skipped';
  /** What was found. */
  readonly summary: string;
  /** Commands (or flags) that fix a failed check, or notes on a passed one. */
  readonly details: readonly string[];
}

export interface PreflightInput {
  readonly config: KernelConfig;
  readonly stackName: string;
  readonly skip: ReadonlySet<CheckName>;
  /** `--no-alarms`: deploy with alarms that notify nobody, said loudly. */
  readonly noAlarms?: boolean;
}

/** Lambda's "Concurrent executions" quota in Service Quotas. */
export const CONCURRENCY_QUOTA_CODE = 'L-B99A9384';
const MANAGED_KEY = 'alias/aws/secretsmanager';

export async function runPreflight(input: PreflightInput, api: AccountApi): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of CHECKS) {
    if (input.skip.has(check) || (check === 'alarms' && input.noAlarms)) {
      results.push(skipped(check, input));
      continue;
    }
    results.push(await RUN[check](input, api).catch((err: unknown) => unanswered(check, err)));
  }
  return results;
}

const ok = (check: CheckName, summary: string, details: string[] = []): CheckResult => ({
  check,
  status: 'ok',
  summary,
  details,
});
const failed = (check: CheckName, summary: string, details: string[]): CheckResult => ({
  check,
  status: 'failed',
  summary,
  details,
});

function skipped(check: CheckName, input: PreflightInput): CheckResult {
  if (check === 'alarms' && !input.config.alarmNotifications) {
    return {
      check,
      status: 'skipped',
      summary: 'NO ALARM DESTINATION (--no-alarms): every alarm of this stack notifies NOBODY',
      details: ['to be told: npm run deploy -- -c alarmEmail=you@example.com'],
    };
  }
  return { check, status: 'skipped', summary: `not checked (--skip-${check})`, details: [] };
}

const RUN: Record<CheckName, (input: PreflightInput, api: AccountApi) => Promise<CheckResult>> = {
  'jwt-secret': checkJwtSecret,
  'model-key': checkModelKey,
  alarms: async ({ config }) => checkAlarms(config),
  concurrency: checkConcurrency,
};

async function checkJwtSecret(input: PreflightInput, api: AccountApi): Promise<CheckResult> {
  const { auth } = input.config;
  if (auth.mode !== 'hs256') return ok('jwt-secret', `jwks: tokens of ${auth.issuer}`);
  const name = auth.secretName;
  const state = await api.describeSecret(name);
  if (state.exists && state.deleted) return scheduledForDeletion('jwt-secret', name);
  if (auth.create) {
    if (!state.exists) return ok('jwt-secret', `${name}: the stack creates it (random, 64 chars)`);
    if (state.tags[OWNER_TAG] === input.stackName) {
      return ok('jwt-secret', `${name}: created by stack ${input.stackName}`);
    }
    return failed('jwt-secret', `${name} exists and is not stack ${input.stackName}'s`, [
      `use it:     npm run deploy -- -c jwtSecret=existing`,
      `or another: npm run deploy -- -c jwtSecretName=${input.stackName.toLowerCase()}/jwt-secret`,
    ]);
  }
  if (!state.exists) {
    return failed('jwt-secret', `${name} does not exist (jwtSecret=existing)`, [
      `create it:  aws secretsmanager create-secret --name ${name} --secret-string "$(openssl rand -hex 32)"`,
      'or let the stack create it: npm run deploy -- -c jwtSecret=create',
    ]);
  }
  return keyCheck('jwt-secret', name, state, input.config) ?? ok('jwt-secret', `${name} exists`);
}

async function checkModelKey(input: PreflightInput, api: AccountApi): Promise<CheckResult> {
  const { modelSecret, bedrockModelArns } = input.config;
  const bedrock =
    bedrockModelArns.length > 0 ? [`Bedrock through the role: ${bedrockModelArns.join(', ')}`] : [];
  if (!modelSecret) {
    if (bedrock.length > 0) {
      return ok('model-key', "no key: Amazon Bedrock through the functions' role", [
        ...bedrock,
        'model access is granted in the Bedrock console per region (not checked here)',
      ]);
    }
    return failed('model-key', 'no model credential: no key secret and no Bedrock model', [
      'a key:     npm run deploy -- -c modelSecretName=agent-kernel/model-key',
      'Bedrock:   npm run deploy -- -c bedrockModelArns=arn:aws:bedrock:<region>::foundation-model/<id>',
      'no model needs one (your agents are keyless): npm run deploy -- --skip-model-key',
    ]);
  }
  if ('parameterName' in modelSecret) {
    const name = modelSecret.parameterName;
    if (await api.parameterExists(name)) return ok('model-key', `SSM ${name} exists`, bedrock);
    return failed('model-key', `SSM parameter ${name} does not exist`, [
      `create it: aws ssm put-parameter --name ${name} --type SecureString --value "$OPENAI_API_KEY"`,
    ]);
  }
  const name = modelSecret.secretName;
  const state = await api.describeSecret(name);
  if (state.exists && state.deleted) return scheduledForDeletion('model-key', name);
  if (!state.exists) {
    return failed(
      'model-key',
      `${name} does not exist: every run would answer "Missing credentials"`,
      [
        `create it: aws secretsmanager create-secret --name ${name} --secret-string "$OPENAI_API_KEY"`,
        '  (a JSON object sets several: {"OPENAI_API_KEY":"…","ANTHROPIC_API_KEY":"…"})',
        'or Bedrock only: npm run deploy -- -c modelSecretName=none -c bedrockModelArns=<model ARNs>',
      ],
    );
  }
  return (
    keyCheck('model-key', name, state, input.config) ?? ok('model-key', `${name} exists`, bedrock)
  );
}

function checkAlarms(config: KernelConfig): CheckResult {
  const to = config.alarmNotifications;
  if (to && 'topicArn' in to) return ok('alarms', `alarms notify ${to.topicArn}`);
  if (to) return ok('alarms', `alarms e-mail ${to.emails.join(', ')} (confirm the subscription)`);
  return failed('alarms', 'no alarm destination: the alarms would notify nobody', [
    'npm run deploy -- -c alarmEmail=you@example.com   (or -c alarmTopicArn=<SNS topic ARN>)',
    'or, knowingly: npm run deploy -- --no-alarms',
  ]);
}

async function checkConcurrency(input: PreflightInput, api: AccountApi): Promise<CheckResult> {
  const { config } = input;
  const { limit, unreserved } = await api.lambdaConcurrency();
  const fanout = config.deliveryMode === 'sqs-fanout' ? config.fanoutMaxConcurrency : 0;
  // The stream function's reserved concurrency (fair use) leaves the shared pool as well.
  const reserved = config.streamReservedConcurrency ?? 0;
  const planned = config.workerMaxConcurrency + fanout + config.approvalsMaxConcurrency + reserved;
  const plan = `worker ${config.workerMaxConcurrency} + fan-out ${fanout} + approvals ${config.approvalsMaxConcurrency}${reserved ? ` + stream reserved ${reserved}` : ''} = ${planned}`;
  const fitting = triggerConcurrency(unreserved);
  const fits = fitting.worker + fitting.fanout + fitting.approvals + FRONT_RESERVE <= unreserved;
  const fitFlag = `-c accountConcurrency=${unreserved} (worker ${fitting.worker}, fan-out ${fitting.fanout}, approvals ${fitting.approvals})`;
  if (planned + FRONT_RESERVE > unreserved) {
    return failed(
      'concurrency',
      `queue triggers may take ${plan} of ${unreserved} unreserved concurrent executions (quota ${limit}), leaving under ${FRONT_RESERVE} to the API functions`,
      [
        ...(fits ? [`fit this account:  npm run deploy -- ${fitFlag}`] : []),
        `raise the quota:   aws service-quotas request-service-quota-increase --service-code lambda --quota-code ${CONCURRENCY_QUOTA_CODE} --desired-value 1000`,
        'sizes per quota: docs/scaling.md',
      ],
    );
  }
  const more =
    fitting.worker > config.workerMaxConcurrency
      ? [`this account carries more: npm run deploy -- ${fitFlag}`]
      : [];
  return ok('concurrency', `${plan} of ${unreserved} unreserved (quota ${limit})`, more);
}

/** No credentials, AccessDenied, no network: the check cannot pass on a guess. */
function unanswered(check: CheckName, err: unknown): CheckResult {
  const e = err as { name?: string; message?: string };
  return failed(check, `could not ask AWS: ${e.name ?? 'Error'}: ${e.message ?? String(err)}`, [
    'check the credentials and region: aws sts get-caller-identity; echo $AWS_REGION',
    `or skip this check: --skip-${check}`,
  ]);
}

function scheduledForDeletion(check: CheckName, name: string): CheckResult {
  return failed(check, `${name} is scheduled for deletion (a deleted stack's?)`, [
    `keep it:   aws secretsmanager restore-secret --secret-id ${name}   (then -c jwtSecret=existing for the JWT secret)`,
    `or drop it: aws secretsmanager delete-secret --secret-id ${name} --force-delete-without-recovery`,
  ]);
}

/** A secret under a customer-managed key is readable only with kms:Decrypt on that key. */
function keyCheck(
  check: CheckName,
  name: string,
  state: Extract<SecretState, { exists: true }>,
  config: KernelConfig,
): CheckResult | undefined {
  const key = state.kmsKeyId;
  if (!key || key === MANAGED_KEY) return undefined;
  if (config.secretKmsKeyArns.includes(key)) return undefined;
  return failed(check, `${name} is encrypted with ${key}, which the functions may not decrypt`, [
    `npm run deploy -- -c secretKmsKeyArns=${key.startsWith('arn:') ? key : "<that key's ARN>"}`,
  ]);
}

/** One line per check, failures with their fixes; the alarm opt-out in capitals. */
export function formatPreflight(results: readonly CheckResult[]): string {
  const mark = { ok: 'ok  ', failed: 'FAIL', skipped: 'skip' } as const;
  const lines = ['agent-kernel preflight (the account, before cdk deploy):'];
  for (const r of results) {
    lines.push(`  ${mark[r.status]} ${r.check.padEnd(12)} ${r.summary}`);
    for (const detail of r.details) lines.push(`         ${detail}`);
  }
  const failures = results.filter((r) => r.status === 'failed');
  if (failures.length > 0) {
    lines.push(
      `preflight failed (${failures.map((r) => r.check).join(', ')}): nothing was deployed.`,
      'Fix and re-run, or skip a check: --skip-<check> (--skip-preflight skips all).',
    );
  }
  return `${lines.join('\n')}\n`;
}
