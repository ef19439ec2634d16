import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/constructs/kernel-function.js';
import { FUNCTIONS } from '../../infra/functions.js';
import {
  grantsOf,
  render,
  resourcesOf,
  type Synthesised,
  stubFunctionsDir,
  synthesise,
} from './helpers.js';

// What a first deploy with no context at all gets (issue 27): a model key and a JWT secret the
// preflight ensures, triggers that fit a 10-execution account, approval requests that reach
// someone, refused approvals alarmed, customer-managed keys decryptable.
const dirs: string[] = [];
let dir: string;
let byDefault: Synthesised;
const synth = (context: Record<string, unknown>) => {
  const result = synthesise({ functionsDir: dir, bundle: false, context });
  dirs.push(result.outdir);
  return result;
};
beforeAll(() => {
  dir = stubFunctionsDir();
  dirs.push(dir);
  byDefault = synth({});
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const fnPrefix = (name: string) =>
  `${name.replace(/(^|-)(\w)/g, (_, _d, c: string) => c.toUpperCase())}Function`;
const envOf = (s: Synthesised, name: string) =>
  Object.entries(resourcesOf(s.template, 'AWS::Lambda::Function')).find(([id]) =>
    id.startsWith(fnPrefix(name)),
  )![1].Properties.Environment.Variables;
const RUNS_AGENTS = FUNCTIONS.filter((f) => f.access.includes('runs-agents')).map((f) => f.name);
const BEDROCK = 'arn:aws:bedrock:eu-west-1::foundation-model/anthropic.claude-3-haiku';
const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

/** Every agent-running function can reach a model: a key it may read, or Bedrock by role. */
function modelCredentials(s: Synthesised): Record<string, string[]> {
  return Object.fromEntries(
    RUNS_AGENTS.map((name) => {
      const env = envOf(s, name);
      const grants = grantsOf(s.template, fnPrefix(name));
      const found: string[] = [];
      const secret = env.MODEL_SECRET_NAME ?? env.MODEL_SECRET_PARAMETER;
      const readable = grants.some((g) =>
        g.resources.some((r) => r.includes(`:secret:${secret}-`) || r.includes(`:parameter`)),
      );
      if (secret && readable) found.push(`key ${secret}`);
      if (grants.some((g) => g.actions.includes('bedrock:InvokeModelWithResponseStream'))) {
        found.push('bedrock');
      }
      return [name, found];
    }),
  );
}

describe('a default deploy reaches a model and verifies tokens', () => {
  it('every function that runs agents reads the model key agent-kernel/model-key', () => {
    expect(RUNS_AGENTS.length).toBeGreaterThanOrEqual(4);
    for (const [name, found] of Object.entries(modelCredentials(byDefault))) {
      expect(found, name).toEqual(['key agent-kernel/model-key']);
    }
    byDefault.template.hasOutput('ModelSecretName', { Value: 'agent-kernel/model-key' });
  });

  it('Bedrock alone: no key, the role invokes the models; none + no Bedrock: no credential', () => {
    const bedrock = synth({ bedrockModelArns: BEDROCK });
    for (const found of Object.values(modelCredentials(bedrock)))
      expect(found).toEqual(['bedrock']);
    const none = synth({ modelSecretName: 'none' });
    for (const found of Object.values(modelCredentials(none))) expect(found).toEqual([]);
  });

  it('the stack creates the JWT secret it names: generated, tagged as its own', () => {
    const secrets = Object.values(resourcesOf(byDefault.template, 'AWS::SecretsManager::Secret'));
    expect(secrets).toHaveLength(1);
    expect(secrets[0]!.Properties).toMatchObject({
      Name: 'agent-kernel/dev-jwt-secret',
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
      Tags: [{ Key: 'agent-kernel:stack', Value: 'Kernel' }],
    });
    expect(envOf(byDefault, 'authorizer').JWT_SECRET_NAME).toBe('agent-kernel/dev-jwt-secret');
    expect(grantsOf(byDefault.template, 'AuthorizerFunction')).toContainEqual({
      actions: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
      resources: ['JwtSecret'],
    });
    const existing = synth({ jwtSecret: 'existing' });
    expect(resourcesOf(existing.template, 'AWS::SecretsManager::Secret')).toEqual({});
    expect(existing.validationReport.pluginReports).toEqual([]);
  });
});

describe('queue triggers sized for the account', () => {
  const maxConcurrency = (s: Synthesised) =>
    Object.values(resourcesOf(s.template, 'AWS::Lambda::EventSourceMapping'))
      .map((m) => m.Properties.ScalingConfig.MaximumConcurrency as number)
      .sort((a, b) => a - b);

  it("default: 2 + 2 + 4 = 8 of a new account's 10; accountConcurrency=1000: 5 + 20 + 50", () => {
    expect(maxConcurrency(byDefault)).toEqual([2, 2, 4]);
    expect(maxConcurrency(synth({ accountConcurrency: '1000' }))).toEqual([5, 20, 50]);
    expect(
      maxConcurrency(synth({ fanoutMaxConcurrency: '7', approvalsMaxConcurrency: '3' })),
    ).toEqual([3, 4, 7]);
  });
});

describe('approval requests reach a person', () => {
  let notified: Synthesised;
  beforeAll(() => {
    notified = synth({ alarmEmail: 'ops@example.com', approvalEmail: 'approver@example.com' });
  });

  it('a pipe publishes each request to an encrypted topic the approvers are subscribed to', () => {
    const pipes = Object.values(resourcesOf(notified.template, 'AWS::Pipes::Pipe'));
    expect(pipes).toHaveLength(1);
    const pipe = pipes[0]!.Properties;
    expect(render(pipe.Source)).toMatch(/^ApprovalRequestsQueue.*\.Arn$/);
    expect(render(pipe.Target)).toMatch(/^ApprovalRequests\w*Topic/);
    expect(render(pipe.TargetParameters.InputTemplate)).toContain('Agent <$.body.agent> waits');
    expect(render(pipe.TargetParameters.InputTemplate)).toMatch(
      /POST https:\/\/HttpApi.*\/sessions\/<\$\.body\.sessionId>\/runs\/<\$\.body\.runId>\/decisions/,
    );
    notified.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'approver@example.com',
    });
    const topics = resourcesOf(notified.template, 'AWS::SNS::Topic');
    const requests = Object.entries(topics).find(([id]) => id.startsWith('ApprovalRequests'))!;
    expect(requests[1].Properties.KmsMasterKeyId).toBeDefined();
    // The pipe's role: read and delete on that queue, publish to that topic, nothing else.
    const role = render(pipe.RoleArn).replace(/\.Arn$/, '');
    const policy = Object.values(resourcesOf(notified.template, 'AWS::IAM::Policy')).find((p) =>
      p.Properties.Roles.some((r: any) => render(r) === role),
    )!;
    const actions = policy.Properties.PolicyDocument.Statement.flatMap((s: any) =>
      [s.Action].flat(),
    );
    expect(actions.sort()).toEqual(
      [
        'kms:Decrypt',
        'kms:GenerateDataKey*',
        'sns:Publish',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:ReceiveMessage',
      ].sort(),
    );
    expect(notified.validationReport.pluginReports).toEqual([]);
  });

  it('its oldest-message alarm is 15 minutes with the pipe, a day when left to your systems', () => {
    const threshold = (s: Synthesised) =>
      Object.entries(resourcesOf(s.template, 'AWS::CloudWatch::Alarm')).find(([id]) =>
        id.includes('approvalRequestsOldestMessage'),
      )![1].Properties.Threshold;
    expect(threshold(notified)).toBe(900);
    expect(threshold(byDefault)).toBe(86_400);
    Annotations.fromStack(byDefault.stack).hasWarning(
      '*',
      Match.stringLikeRegexp('Approval requests reach nobody'),
    );
    expect(resourcesOf(byDefault.template, 'AWS::Pipes::Pipe')).toEqual({});
  });

  it('alarm addresses get the requests when no approvalEmail is given; your topic instead', () => {
    const alarmsOnly = synth({ alarmEmail: 'ops@example.com' });
    alarmsOnly.template.resourceCountIs('AWS::Pipes::Pipe', 1);
    const topicArn = 'arn:aws:sns:eu-west-1:123456789012:approvals';
    const yours = synth({ approvalTopicArn: topicArn });
    const pipe = Object.values(resourcesOf(yours.template, 'AWS::Pipes::Pipe'))[0]!;
    expect(pipe.Properties.Target).toBe(topicArn);
    yours.template.hasOutput('ApprovalTopicArn', { Value: topicArn });
  });
});

describe('refused approvals', () => {
  it('ApprovalsRefused (EMF, lib/aws/handlers/approvals.ts) has an alarm at 1 in 5 minutes, notifying', () => {
    const alarmed = synth({ alarmEmail: 'ops@example.com' });
    alarmed.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApprovalsRefused',
      Namespace: 'AgentKernel',
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: Match.anyValue(),
    });
  });
});

describe('secrets under a customer-managed key', () => {
  it('secretKmsKeyArns: kms:Decrypt through Secrets Manager or SSM, to secret readers only', () => {
    const withKey = synth({ secretKmsKeyArns: KEY });
    const decrypt = (s: Synthesised, name: string) =>
      grantsOf(s.template, fnPrefix(name)).filter((g) => g.actions.includes('kms:Decrypt'));
    for (const name of [...RUNS_AGENTS, 'authorizer']) {
      expect(decrypt(withKey, name), name).toEqual([
        {
          actions: ['kms:Decrypt'],
          resources: [KEY],
          condition: {
            StringEquals: {
              'kms:ViaService': [
                {
                  'Fn::Join': [
                    '',
                    ['secretsmanager.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }],
                  ],
                },
                {
                  'Fn::Join': [
                    '',
                    ['ssm.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }],
                  ],
                },
              ],
            },
          },
        },
      ]);
      expect(decrypt(byDefault, name)).toEqual([]);
    }
    for (const name of ['fanout', 'ws-connect', 'ws-message', 'approvals']) {
      expect(decrypt(withKey, name), name).toEqual([]);
    }
    expect(withKey.validationReport.pluginReports).toEqual([]);
  });
});

describe('the CDK app refuses a misspelt key', () => {
  it('`cdk synth -c logRetentionDay=7` fails naming logRetentionDays, before any bundling', () => {
    const run = spawnSync('npx', ['cdk', 'synth', '--quiet', '-c', 'logRetentionDay=7'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      timeout: 280_000,
      env: { ...process.env, AWS_EC2_METADATA_DISABLED: 'true' },
    });
    expect(run.status).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toMatch(
      /unknown key logRetentionDay \(did you mean logRetentionDays\?\)/,
    );
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/agent-kernel: bundling/);
  });
});
