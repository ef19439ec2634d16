import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromContext } from '../../infra/config.js';
import { HTTP_ROUTES } from '../../infra/constructs/http-api.js';
import { render, resourcesOf, stubFunctionsDir, synthesise as synthesiseOnce } from './helpers.js';

// No bundling here: these synths check wiring that depends on configuration and on which
// entry files exist (the functions not written yet are created as stubs in a temp dir).
// The first synth of a run loads aws-cdk-lib and cdk-nag: seconds, not milliseconds.
const dirs: string[] = [];
const stubs = (...args: Parameters<typeof stubFunctionsDir>) => {
  const dir = stubFunctionsDir(...args);
  dirs.push(dir);
  return dir;
};
const synthesise = (...args: Parameters<typeof synthesiseOnce>) => {
  const synth = synthesiseOnce(...args);
  dirs.push(synth.outdir);
  return synth;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const JWKS = {
  authMode: 'jwks',
  jwksUrl: 'https://id.example.com/.well-known/jwks.json',
  jwtIssuer: 'https://id.example.com/',
  jwtAudience: 'agent-kernel',
};

describe('configuration from context', () => {
  it('defaults to sqs-fanout, hs256 with a named secret, 30-day logs', () => {
    // Prepare / Act
    const config = configFromContext({});
    // Assess
    expect(config).toMatchObject({
      deliveryMode: 'sqs-fanout',
      auth: { mode: 'hs256', secretName: 'agent-kernel/dev-jwt-secret' },
      logRetentionDays: 30,
      retainTable: true,
    });
  });

  it('names every bad key, and refuses jwks without issuer and audience', () => {
    expect(() => configFromContext({ deliveryMode: 'carrier-pigeon' })).toThrow(/deliveryMode/);
    expect(() => configFromContext({ authMode: 'jwks' })).toThrow(/jwtIssuer/);
    expect(() => configFromContext({ modelSecretName: 'a', modelParameterName: 'b' })).toThrow(
      /not both/,
    );
  });
});

describe('wiring by configuration', () => {
  it('direct delivery: no events queue or fan-out; the worker posts to connections', () => {
    // Prepare / Act
    const { template } = synthesise({
      functionsDir: stubs(),
      bundle: false,
      context: { deliveryMode: 'direct' },
    });
    // Assess
    expect(Object.keys(resourcesOf(template, 'AWS::SQS::Queue'))).toHaveLength(6);
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    expect(Object.keys(functions).some((id) => id.startsWith('Fanout'))).toBe(false);
    const worker = Object.entries(functions).find(([id]) => id.startsWith('WorkerFunction'))![1];
    expect(worker.Properties.Environment.Variables.WEBSOCKET_ENDPOINT).toBeDefined();
    expect(worker.Properties.Environment.Variables.EVENTS_QUEUE_URL).toBeUndefined();
  });

  it('agentNames: ws-message alone gets AGENT_NAMES; without it, no function does', () => {
    // Prepare / Act
    const named = synthesise({
      functionsDir: stubs(),
      bundle: false,
      context: { agentNames: 'demo,support' },
    });
    const unnamed = synthesise({ functionsDir: stubs(), bundle: false });
    // Assess
    const variables = (template: typeof named.template) =>
      Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).map(
        ([id, fn]) => [id.replace(/Function.*$/, ''), fn.Properties.Environment.Variables] as const,
      );
    const withNames = variables(named.template).filter(([, v]) => v.AGENT_NAMES !== undefined);
    expect(withNames).toEqual([
      ['WsMessage', expect.objectContaining({ AGENT_NAMES: 'demo,support' })],
    ]);
    expect(variables(unnamed.template).some(([, v]) => v.AGENT_NAMES !== undefined)).toBe(false);
    expect(() =>
      synthesise({ functionsDir: stubs(), bundle: false, context: { agentNames: 'a b' } }),
    ).toThrow();
  });

  it('eventBatchMaxDelayMs: the worker gets the batching window; bad values are refused', () => {
    // Prepare / Act
    const { template } = synthesise({
      functionsDir: stubs(),
      bundle: false,
      context: { eventBatchMaxDelayMs: '200' },
    });
    // Assess
    const functions = Object.entries(resourcesOf(template, 'AWS::Lambda::Function'));
    const windows = functions
      .filter(([, fn]) => fn.Properties.Environment.Variables.EVENT_BATCH_MAX_DELAY_MS)
      .map(([id, fn]) => [
        id.replace(/Function.*$/, ''),
        fn.Properties.Environment.Variables.EVENT_BATCH_MAX_DELAY_MS,
      ]);
    expect(windows).toEqual([['Worker', '200']]);
    for (const bad of ['0', '5000', 'soon']) {
      expect(() =>
        synthesise({
          functionsDir: stubs(),
          bundle: false,
          context: { eventBatchMaxDelayMs: bad },
        }),
      ).toThrow();
    }
  });

  it('jwks: the HTTP API verifies JWTs itself; the WebSocket authorizer gets the JWKS URL', () => {
    // Prepare / Act
    const { template } = synthesise({ functionsDir: stubs(), bundle: false, context: JWKS });
    // Assess
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      JwtConfiguration: { Issuer: JWKS.jwtIssuer, Audience: [JWKS.jwtAudience] },
    });
    const authorizer = Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).find(([id]) =>
      id.startsWith('AuthorizerFunction'),
    )![1];
    expect(authorizer.Properties.Environment.Variables).toMatchObject({
      AUTH_MODE: 'jwks',
      JWKS_URL: JWKS.jwksUrl,
      JWT_ISSUER: JWKS.jwtIssuer,
      JWT_AUDIENCE: JWKS.jwtAudience,
    });
    expect(authorizer.Properties.Environment.Variables.JWT_SECRET).toBeUndefined();
  });

  it('hs256: jwtIssuer / jwtAudience, when set, reach every token-verifying function', () => {
    // Prepare / Act
    const context = { jwtIssuer: 'https://dev.example.com/', jwtAudience: 'kernel-dev' };
    const { template } = synthesise({ functionsDir: stubs(), bundle: false, context });
    // Assess
    const verifying = Object.values(resourcesOf(template, 'AWS::Lambda::Function')).filter(
      (fn: any) => fn.Properties.Environment?.Variables?.AUTH_MODE === 'hs256',
    );
    expect(verifying.length).toBeGreaterThan(0);
    for (const fn of verifying as any[]) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        JWT_ISSUER: context.jwtIssuer,
        JWT_AUDIENCE: context.jwtAudience,
      });
    }
  });

  it('an SSM parameter as model secret: its name in the environment, read granted', () => {
    // Prepare / Act
    const { template } = synthesise({
      functionsDir: stubs(['invoke']),
      bundle: false,
      context: { modelParameterName: '/agent-kernel/openai-key' },
    });
    // Assess
    const policies = JSON.stringify(resourcesOf(template, 'AWS::IAM::Policy'));
    expect(policies).toContain('ssm:GetParameter');
    expect(policies).toContain(':parameter/agent-kernel/openai-key');
    expect(JSON.stringify(resourcesOf(template, 'AWS::Lambda::Function'))).toContain(
      '"MODEL_SECRET_PARAMETER":"/agent-kernel/openai-key"',
    );
  });
});

describe('functions that do not exist yet', () => {
  it('today (invoke, http): no WebSocket API, and with hs256 only /health', () => {
    // Prepare / Act
    const { template } = synthesise({ functionsDir: stubs(['invoke', 'http']), bundle: false });
    // Assess
    expect(Object.keys(resourcesOf(template, 'AWS::Lambda::Function'))).toHaveLength(2);
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    const routes = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route'));
    expect(routes.map((r) => r.Properties.RouteKey)).toEqual(['GET /health']);
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 0);
  });

  it('with jwks every HTTP route is served before the authorizer function exists', () => {
    // Prepare / Act
    const { template } = synthesise({
      functionsDir: stubs(['invoke', 'http']),
      bundle: false,
      context: JWKS,
    });
    // Assess
    template.resourceCountIs('AWS::ApiGatewayV2::Route', HTTP_ROUTES.length);
  });

  it('picks a function up as soon as its entry file lands', () => {
    // Prepare / Act
    const { template } = synthesise({
      functionsDir: stubs(['invoke', 'http', 'worker', 'approvals']),
      bundle: false,
    });
    // Assess
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
  });
});

describe('the agents entry', () => {
  it('replaces #agents with the file named by agentsEntry (one bundle)', () => {
    // Prepare
    const dir = stubs(['invoke']);
    const agents = join(dir, 'my-agents.ts');
    writeFileSync(agents, "export const marker = 'custom-agents-entry-marker';\n");
    // Act
    const { outdir } = synthesise({ functionsDir: dir, context: { agentsEntry: agents } });
    // Assess
    const [asset] = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    const code = readFileSync(join(outdir, asset!, 'index.mjs'), 'utf8');
    expect(code).toContain('custom-agents-entry-marker');
  });
});

describe('the AWS SDK', () => {
  it.each([
    ['bundled by default', {}, false],
    ['left to the Lambda runtime with bundleAwsSdk=false', { bundleAwsSdk: 'false' }, true],
  ])('is %s', (_, context, external) => {
    // Prepare
    const dir = stubs(['invoke']);
    writeFileSync(
      join(dir, 'invoke.ts'),
      "import { SQSClient } from '@aws-sdk/client-sqs';\nexport const handler = async () => new SQSClient({}).config.region();\n",
    );
    // Act
    const { outdir } = synthesise({ functionsDir: dir, context });
    // Assess
    const [asset] = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    const code = readFileSync(join(outdir, asset!, 'index.mjs'), 'utf8');
    expect(/from\s*"@aws-sdk\/client-sqs"/.test(code)).toBe(external);
    expect(code.length).toSatisfy((n: number) => (external ? n < 10_000 : n > 100_000));
  });
});

describe('alarm notifications', () => {
  const alarmsOf = (template: Parameters<typeof resourcesOf>[0]) =>
    Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties);

  it('alarmEmail: an encrypted, TLS-only topic only CloudWatch alarms of the account publish to', () => {
    // Prepare / Act
    const { template, validationReport } = synthesise({
      functionsDir: stubs(['invoke', 'worker']),
      bundle: false,
      context: { alarmEmail: 'ops@example.com, oncall@example.com' },
    });
    // Assess: every alarm notifies the topic when it fires and when it recovers.
    // The alarm topic (approval requests get a topic of their own: first-deploy.test.ts).
    const [topicId] = Object.keys(resourcesOf(template, 'AWS::SNS::Topic')).filter((id) =>
      id.startsWith('Alarms'),
    );
    const alarms = alarmsOf(template);
    expect(alarms.length).toBeGreaterThanOrEqual(2 * 2 + 2 * 4);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.OKActions).toEqual([{ Ref: topicId }]);
    }
    const [keyId, key] = Object.entries(resourcesOf(template, 'AWS::KMS::Key')).find(([id]) =>
      id.startsWith('Alarms'),
    )!;
    expect(resourcesOf(template, 'AWS::SNS::Topic')[topicId!]!.Properties.KmsMasterKeyId).toEqual({
      'Fn::GetAtt': [keyId, 'Arn'],
    });
    expect(key.Properties.EnableKeyRotation).toBe(true);
    const fromOurAlarms = {
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      ArnLike: { 'aws:SourceArn': expect.objectContaining({ 'Fn::Join': expect.anything() }) },
    };
    expect(key.Properties.KeyPolicy.Statement).toContainEqual(
      expect.objectContaining({
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Condition: fromOurAlarms,
      }),
    );
    const [, policy] = Object.entries(resourcesOf(template, 'AWS::SNS::TopicPolicy')).find(([id]) =>
      id.startsWith('Alarms'),
    )!;
    const statements = policy!.Properties.PolicyDocument.Statement as any[];
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: topicId },
        Condition: fromOurAlarms,
      }),
    );
    const publish = statements.find((st) => st.Effect === 'Allow');
    expect(render(publish.Condition.ArnLike['aws:SourceArn'])).toBe(
      'arn:<AWS::Partition>:cloudwatch:<AWS::Region>:<AWS::AccountId>:alarm:*',
    );
    const emails = Object.values(resourcesOf(template, 'AWS::SNS::Subscription'))
      .filter((sub) => sub.Properties.TopicArn.Ref === topicId)
      .map((sub) => `${sub.Properties.Protocol} ${sub.Properties.Endpoint}`);
    expect(emails.sort()).toEqual(['email oncall@example.com', 'email ops@example.com']);
    expect(Object.keys(template.findOutputs('AlarmTopicArn'))).toEqual(['AlarmTopicArn']);
    expect(validationReport.pluginReports).toEqual([]);
  });

  it('alarmTopicArn: every alarm notifies your topic; the stack creates none', () => {
    // Prepare
    const topicArn = 'arn:aws:sns:eu-west-1:123456789012:ops-alarms';
    // Act
    const { template } = synthesise({
      functionsDir: stubs(['invoke']),
      bundle: false,
      context: { alarmTopicArn: topicArn },
    });
    // Assess
    template.resourceCountIs('AWS::SNS::Topic', 0);
    template.resourceCountIs('AWS::KMS::Key', 0);
    for (const alarm of alarmsOf(template)) {
      expect(alarm.AlarmActions).toEqual([topicArn]);
      expect(alarm.OKActions).toEqual([topicArn]);
    }
  });

  it('refuses both, an address that is none and an ARN that is no SNS topic', () => {
    expect(() =>
      configFromContext({ alarmEmail: 'a@example.com', alarmTopicArn: 'arn:aws:sns:x' }),
    ).toThrow(/not both|alarmTopicArn/);
    expect(() => configFromContext({ alarmEmail: 'ops@example.com,nobody' })).toThrow(/alarmEmail/);
    expect(() =>
      configFromContext({ alarmTopicArn: 'arn:aws:sqs:eu-west-1:123456789012:q' }),
    ).toThrow(/alarmTopicArn/);
    expect(
      configFromContext({
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops-alarms',
      }).alarmNotifications,
    ).toEqual({ topicArn: 'arn:aws:sns:eu-west-1:123456789012:ops-alarms' });
  });
});
