import { randomBytes } from 'node:crypto';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsAccountApi } from '../../infra/account-api.js';
import { configFromContext } from '../../infra/config.js';
import { PROJECT_ROOT } from '../../infra/constructs/kernel-function.js';
import { deploy, parseDeployArgs } from '../../infra/deploy.js';
import { type CheckName, type CheckResult, runPreflight } from '../../infra/preflight.js';
import { type AwsStandIn, startAwsStandIn } from './aws-stand-in.js';

// Every preflight check against moto's Secrets Manager and SSM and a fake Lambda account-settings
// endpoint, through the real SDK clients (infra/account-api.ts): present, missing, and missing
// then fixed by the very command the failure printed.
let aws: AwsStandIn;
let secrets: SecretsManagerClient;
let ssm: SSMClient;
const saved = { ...process.env };
beforeAll(async () => {
  aws = await startAwsStandIn();
  secrets = new SecretsManagerClient({});
  ssm = new SSMClient({});
});
afterAll(async () => {
  secrets?.destroy();
  ssm?.destroy();
  await aws?.stop();
  process.env = saved;
});

const unique = (what: string) => `t-${randomBytes(4).toString('hex')}/${what}`;
const ALARMS = { alarmEmail: 'ops@example.com' };

async function check(
  name: CheckName,
  context: Record<string, unknown>,
  options: { stackName?: string; noAlarms?: boolean } = {},
): Promise<CheckResult> {
  const api = awsAccountApi();
  try {
    const results = await runPreflight(
      {
        config: configFromContext(context),
        stackName: options.stackName ?? 'AgentKernel',
        skip: new Set(),
        ...(options.noAlarms ? { noAlarms: true } : {}),
      },
      api,
    );
    return results.find((r) => r.check === name)!;
  } finally {
    api.destroy();
  }
}

/** Runs the `aws secretsmanager create-secret --name X …` a failure printed, through the SDK. */
async function runCreateSecret(result: CheckResult): Promise<string> {
  const command = result.details.find((d) => d.includes('aws secretsmanager create-secret'))!;
  const name = /--name (\S+)/.exec(command)![1]!;
  await secrets.send(new CreateSecretCommand({ Name: name, SecretString: 'value' }));
  return name;
}

describe('jwt-secret', () => {
  it('jwtSecret=create (default): missing is fine (the stack creates it), so is its own', async () => {
    const name = unique('jwt');
    const missing = await check('jwt-secret', { jwtSecretName: name });
    expect(missing).toMatchObject({
      status: 'ok',
      summary: `${name}: the stack creates it (random, 64 chars)`,
    });
    await secrets.send(
      new CreateSecretCommand({
        Name: name,
        SecretString: 'x',
        Tags: [{ Key: 'agent-kernel:stack', Value: 'AgentKernel' }],
      }),
    );
    expect((await check('jwt-secret', { jwtSecretName: name })).status).toBe('ok');
    // Another stack's (or one made by hand): the deploy would collide with it.
    const other = await check('jwt-secret', { jwtSecretName: name }, { stackName: 'Kernel2' });
    expect(other.status).toBe('failed');
    expect(other.details.join('\n')).toContain('npm run deploy -- -c jwtSecret=existing');
  });

  it('jwtSecret=existing: missing fails with the create command; after it, passes', async () => {
    const name = unique('jwt');
    const missing = await check('jwt-secret', { jwtSecretName: name, jwtSecret: 'existing' });
    expect(missing.status).toBe('failed');
    expect(missing.details[0]).toBe(
      `create it:  aws secretsmanager create-secret --name ${name} --secret-string "$(openssl rand -hex 32)"`,
    );
    await runCreateSecret(missing);
    const fixed = await check('jwt-secret', { jwtSecretName: name, jwtSecret: 'existing' });
    expect(fixed).toMatchObject({ status: 'ok', summary: `${name} exists` });
  });

  it("a secret scheduled for deletion (a destroyed stack's) says restore or force-delete", async () => {
    const name = unique('jwt');
    await secrets.send(new CreateSecretCommand({ Name: name, SecretString: 'x' }));
    await secrets.send(new DeleteSecretCommand({ SecretId: name, RecoveryWindowInDays: 7 }));
    const result = await check('jwt-secret', { jwtSecretName: name });
    expect(result.status).toBe('failed');
    expect(result.details.join('\n')).toContain(
      `aws secretsmanager restore-secret --secret-id ${name}`,
    );
  });

  it('authMode=jwks: nothing to check in the account', async () => {
    const result = await check('jwt-secret', {
      authMode: 'jwks',
      jwksUrl: 'https://id.example.com/jwks.json',
      jwtIssuer: 'https://id.example.com/',
      jwtAudience: 'kernel',
    });
    expect(result).toMatchObject({
      status: 'ok',
      summary: 'jwks: tokens of https://id.example.com/',
    });
  });
});

describe('model-key', () => {
  it('the default key missing: fails saying every run would answer "Missing credentials"; fixed by the printed command', async () => {
    const name = unique('model-key');
    const missing = await check('model-key', { modelSecretName: name });
    expect(missing.status).toBe('failed');
    expect(missing.summary).toContain('Missing credentials');
    expect(missing.details[0]).toBe(
      `create it: aws secretsmanager create-secret --name ${name} --secret-string "$OPENAI_API_KEY"`,
    );
    await runCreateSecret(missing);
    expect((await check('model-key', { modelSecretName: name })).status).toBe('ok');
  });

  it('the default name is agent-kernel/model-key', async () => {
    const result = await check('model-key', {});
    expect(result.summary).toMatch(/^agent-kernel\/model-key /);
  });

  it('a key under a customer-managed KMS key needs secretKmsKeyArns', async () => {
    const name = unique('model-key');
    const key = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    await secrets.send(new CreateSecretCommand({ Name: name, SecretString: 'sk', KmsKeyId: key }));
    const refused = await check('model-key', { modelSecretName: name });
    expect(refused.status).toBe('failed');
    expect(refused.details).toEqual([`npm run deploy -- -c secretKmsKeyArns=${key}`]);
    const granted = await check('model-key', { modelSecretName: name, secretKmsKeyArns: key });
    expect(granted.status).toBe('ok');
  });

  it('an SSM parameter: missing then put', async () => {
    const name = `/${unique('model-key')}`;
    const missing = await check('model-key', { modelParameterName: name });
    expect(missing.status).toBe('failed');
    expect(missing.details[0]).toContain(
      `aws ssm put-parameter --name ${name} --type SecureString`,
    );
    await ssm.send(new PutParameterCommand({ Name: name, Value: 'sk', Type: 'SecureString' }));
    expect((await check('model-key', { modelParameterName: name })).status).toBe('ok');
  });

  it('Bedrock only passes; no key and no Bedrock fails with the three ways out', async () => {
    const bedrock = await check('model-key', {
      bedrockModelArns: 'arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-lite-v1:0',
    });
    expect(bedrock.status).toBe('ok');
    const none = await check('model-key', { modelSecretName: 'none' });
    expect(none.status).toBe('failed');
    expect(none.details.join('\n')).toMatch(
      /modelSecretName=.*\n.*bedrockModelArns=.*\n.*--skip-model-key/,
    );
  });
});

describe('alarms', () => {
  it('no destination fails; alarmEmail passes; --no-alarms is a loud skip', async () => {
    const none = await check('alarms', {});
    expect(none.status).toBe('failed');
    expect(none.details[0]).toContain('-c alarmEmail=you@example.com');
    expect((await check('alarms', ALARMS)).status).toBe('ok');
    const optedOut = await check('alarms', {}, { noAlarms: true });
    expect(optedOut).toMatchObject({ status: 'skipped' });
    expect(optedOut.summary).toContain('notifies NOBODY');
  });
});

describe('concurrency', () => {
  it('the default fits a 10-execution account, and says what a larger one carries', async () => {
    aws.lambda = { limit: 10 };
    const small = await check('concurrency', {});
    expect(small).toMatchObject({
      status: 'ok',
      summary: 'worker 4 + fan-out 2 + approvals 2 = 8 of 10 unreserved (quota 10)',
      details: [],
    });
    aws.lambda = { limit: 1000 };
    const large = await check('concurrency', {});
    expect(large.status).toBe('ok');
    expect(large.details).toEqual([
      'this account carries more: npm run deploy -- -c accountConcurrency=1000 (worker 50, fan-out 20, approvals 5)',
    ]);
  });

  it('triggers beyond the quota fail with the flag that fits and the quota request', async () => {
    aws.lambda = { limit: 10 };
    const result = await check('concurrency', { accountConcurrency: '1000' });
    expect(result.status).toBe('failed');
    expect(result.details).toEqual([
      'fit this account:  npm run deploy -- -c accountConcurrency=10 (worker 4, fan-out 2, approvals 2)',
      'raise the quota:   aws service-quotas request-service-quota-increase --service-code lambda --quota-code L-B99A9384 --desired-value 1000',
      'sizes per quota: docs/scaling.md',
    ]);
    // Fixed by the printed flag.
    expect((await check('concurrency', { accountConcurrency: '10' })).status).toBe('ok');
  });

  it('reserved concurrency elsewhere counts: unreserved is what the stack shares', async () => {
    aws.lambda = { limit: 1000, unreserved: 60 };
    const result = await check('concurrency', { accountConcurrency: '1000' });
    expect(result.status).toBe('failed');
    expect(result.summary).toContain('of 60 unreserved');
  });

  it("the stream function's reserved concurrency is counted with the triggers", async () => {
    aws.lambda = { limit: 10 };
    const result = await check('concurrency', { streamReservedConcurrency: '1' });
    expect(result.status).toBe('failed');
    expect(result.summary).toContain('+ stream reserved 1 = 9');
  });

  it('an answer AWS refuses (AccessDenied) fails the check, naming the error', async () => {
    aws.lambda = { limit: 10, denied: true };
    const result = await check('concurrency', {});
    expect(result.status).toBe('failed');
    expect(result.summary).toMatch(/^could not ask AWS: AccessDeniedException/);
    expect(result.details).toContain('or skip this check: --skip-concurrency');
    aws.lambda = { limit: 10 };
  });
});

describe('npm run deploy (infra/deploy.ts)', () => {
  const run = async (argv: string[]) => {
    const events: string[] = [];
    const cdk: string[][] = [];
    const code = await deploy(argv, {
      runCdk: (args) => {
        events.push('cdk');
        cdk.push(args);
        return 0;
      },
      api: () => {
        events.push('preflight');
        return awsAccountApi();
      },
      write: (text) => events.push(text),
      projectRoot: PROJECT_ROOT,
    });
    return { code, events, cdk, output: events.join('') };
  };

  it('runs the preflight first and stops cdk deploy when a check fails', async () => {
    aws.lambda = { limit: 10 };
    const jwt = unique('jwt');
    const { code, cdk, output } = await run([
      '-c',
      `jwtSecretName=${jwt}`,
      '-c',
      `modelSecretName=${unique('missing')}`,
    ]);
    expect(code).toBe(1);
    expect(cdk).toEqual([]);
    expect(output).toMatch(/FAIL model-key/);
    expect(output).toMatch(/FAIL alarms/);
    expect(output).toContain('preflight failed (model-key, alarms): nothing was deployed.');
  });

  it('every check passing: cdk deploy --all --outputs-file, with the cdk options only', async () => {
    aws.lambda = { limit: 10 };
    const model = unique('model');
    await secrets.send(new CreateSecretCommand({ Name: model, SecretString: 'sk' }));
    const argv = [
      '-c',
      `modelSecretName=${model}`,
      '--context',
      'alarmEmail=ops@example.com',
      '--require-approval',
      'never',
    ];
    const { code, events, cdk } = await run(argv);
    expect(code).toBe(0);
    expect(events.indexOf('preflight')).toBeLessThan(events.indexOf('cdk'));
    expect(cdk).toEqual([['deploy', '--all', '--outputs-file', 'cdk-outputs.json', ...argv]]);
  });

  it('our flags never reach cdk; --skip-preflight asks AWS nothing', async () => {
    const skipped = await run([
      '--skip-model-key',
      '--no-alarms',
      '--skip-concurrency',
      '--skip-jwt-secret',
    ]);
    expect(skipped.code).toBe(0);
    expect(skipped.cdk).toEqual([['deploy', '--all', '--outputs-file', 'cdk-outputs.json']]);
    expect(skipped.output).toContain('notifies NOBODY');
    const none = await run(['--skip-preflight']);
    expect(none.events).toEqual(['cdk']);
  });

  it('reads its flags anywhere on the line and hands cdk the rest as given, in order', () => {
    const parsed = parseDeployArgs([
      '--profile',
      'dev',
      '--context=alarmEmail=ops@example.com',
      '--skip-model-key',
      '-c',
      'stackName=Mine',
      '--no-alarms',
      '--',
      '--skip-preflight',
    ]);
    expect(parsed.skip).toEqual(new Set(['model-key']));
    expect(parsed.noAlarms).toBe(true);
    // After `--` nothing is ours.
    expect(parsed.skipPreflight).toBe(false);
    expect(parsed.context).toEqual({ alarmEmail: 'ops@example.com', stackName: 'Mine' });
    expect(parsed.cdkArgs).toEqual([
      '--profile',
      'dev',
      '--context=alarmEmail=ops@example.com',
      '-c',
      'stackName=Mine',
      '--',
      '--skip-preflight',
    ]);
  });

  it('a misspelt key or flag stops before AWS or cdk is asked anything', async () => {
    const typo = await run(['-c', 'alarmEmial=ops@example.com']);
    expect(typo.code).toBe(1);
    expect(typo.events).toEqual([
      'error: Invalid agent kernel context: unknown key alarmEmial (did you mean alarmEmail?); the keys are listed in README, Deploying.\n',
    ]);
    const flag = await run(['--skip-modle-key']);
    expect(flag.code).toBe(1);
    expect(flag.output).toContain('unknown flag --skip-modle-key');
  });
});
