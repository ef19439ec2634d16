import { rmSync } from 'node:fs';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../../infra/functions.js';
import { render, resourcesOf, type Synthesised, stubFunctionsDir, synthesise } from './helpers.js';

// What a first deploy in a fresh account and the first incident need (issue 16), asserted on
// synthesized templates: the default one, one without the account logging role, one tuned.
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
  byDefault = synth({ modelSecretName: 'agent-kernel/openai' });
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const functions = (s: Synthesised) =>
  Object.entries(resourcesOf(s.template, 'AWS::Lambda::Function'));
const envOf = (s: Synthesised, prefix: string) =>
  functions(s).find(([id]) => id.startsWith(`${prefix}Function`))![1].Properties.Environment
    .Variables;

describe('region- and account-agnostic template', () => {
  it('holds no region, account id or partition literal: pseudo parameters only', () => {
    const json = JSON.stringify(byDefault.template.toJSON());
    expect(json).not.toMatch(
      /\b(us|eu|ap|sa|ca|me|af|il|mx|cn|us-gov)-(east|west|north|south|central|northeast|southeast|northwest|southwest)-\d\b/,
    );
    expect(json).not.toMatch(/\b\d{12}\b/);
    expect(json).not.toMatch(/arn:aws:/);
    expect(json).toContain('"Ref":"AWS::Region"');
  });

  it('builds WEBSOCKET_ENDPOINT from the API id and AWS::Region', () => {
    const endpoint = render(envOf(byDefault, 'WsMessage').WEBSOCKET_ENDPOINT);
    expect(endpoint).toMatch(
      /^https:\/\/WebSocketApi.*\.execute-api\.<AWS::Region>\.<AWS::URLSuffix>\/live$/,
    );
  });
});

describe('secrets', () => {
  it('no function environment holds a secret value or a dynamic reference', () => {
    for (const [id, fn] of functions(byDefault)) {
      const env = JSON.stringify(fn.Properties.Environment ?? {});
      expect(env, id).not.toMatch(/\{\{resolve:/);
      expect(env, id).not.toMatch(/"(JWT_SECRET|OPENAI_API_KEY|[A-Z_]*API_KEY)"/);
    }
    expect(JSON.stringify(byDefault.template.toJSON())).not.toMatch(/\{\{resolve:secretsmanager/);
  });

  it('the authorizer gets the HS256 secret name and read access to that secret only', () => {
    expect(envOf(byDefault, 'Authorizer').JWT_SECRET_NAME).toBe('agent-kernel/dev-jwt-secret');
    const policies = JSON.stringify(resourcesOf(byDefault.template, 'AWS::IAM::Policy'));
    // The stack's own generated secret (jwtSecret=create); by name with jwtSecret=existing.
    expect(policies).toContain('{"Ref":"JwtSecret');
    const existing = synth({ jwtSecret: 'existing' });
    expect(JSON.stringify(resourcesOf(existing.template, 'AWS::IAM::Policy'))).toContain(
      ':secret:agent-kernel/dev-jwt-secret-??????',
    );
  });
});

describe('the table', () => {
  it('has deletion protection by default; tableDeletionProtection=false turns it off', () => {
    byDefault.template.hasResourceProperties('AWS::DynamoDB::Table', {
      DeletionProtectionEnabled: true,
    });
    const throwaway = synth({ tableDeletionProtection: 'false', retainTable: 'false' });
    throwaway.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
  });
});

describe('the API Gateway account logging role', () => {
  it('create (default): the stack sets it, retained, before the WebSocket stage', () => {
    const accounts = Object.entries(resourcesOf(byDefault.template, 'AWS::ApiGateway::Account'));
    expect(accounts).toHaveLength(1);
    const [accountId, account] = accounts[0]! as [string, any];
    expect(account.DeletionPolicy).toBe('Retain');
    const roleId = account.Properties.CloudWatchRoleArn['Fn::GetAtt'][0];
    const role = resourcesOf(byDefault.template, 'AWS::IAM::Role')[roleId] as any;
    expect(role.DeletionPolicy).toBe('Retain');
    expect(JSON.stringify(role.Properties.AssumeRolePolicyDocument)).toContain(
      'apigateway.amazonaws.com',
    );
    const stages = Object.values(
      resourcesOf(byDefault.template, 'AWS::ApiGatewayV2::Stage'),
    ) as any[];
    const ws = stages.find((s) => s.Properties.StageName === 'live');
    expect(ws.DependsOn).toContain(accountId);
    expect(ws.Properties.AccessLogSettings).toBeDefined();
  });

  it('none: no Account resource, WebSocket access logs off, and a warning saying how', () => {
    const none = synth({ apiGatewayAccountRole: 'none' });
    none.template.resourceCountIs('AWS::ApiGateway::Account', 0);
    const stages = Object.values(resourcesOf(none.template, 'AWS::ApiGatewayV2::Stage')) as any[];
    const ws = stages.find((s) => s.Properties.StageName === 'live');
    const http = stages.find((s) => s.Properties.StageName === '$default');
    expect(ws.Properties.AccessLogSettings).toBeUndefined();
    // HTTP APIs log without the account role.
    expect(http.Properties.AccessLogSettings).toBeDefined();
    Annotations.fromStack(none.stack).hasWarning(
      '*',
      Match.stringLikeRegexp('apiGatewayAccountRole=create'),
    );
    expect(none.validationReport.pluginReports).toEqual([]);
  });

  it('existing: logs on, nothing account-wide created', () => {
    const existing = synth({ apiGatewayAccountRole: 'existing' });
    existing.template.resourceCountIs('AWS::ApiGateway::Account', 0);
    existing.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: 'live',
      AccessLogSettings: Match.anyValue(),
    });
  });
});

describe('alarms that mean something', () => {
  const alarms = (s: Synthesised) =>
    Object.entries(resourcesOf(s.template, 'AWS::CloudWatch::Alarm')).map(([id, a]) => ({
      id,
      p: a.Properties,
      text: JSON.stringify(a.Properties),
    }));

  it('failed SQS records per consuming function, by its name (FailedRecords)', () => {
    const failed = alarms(byDefault).filter((a) => a.text.includes('"MetricName":"FailedRecords"'));
    expect(failed.map((a) => a.id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual([
      'MonitoringapprovalsFailedRecords',
      'MonitoringfanoutFailedRecords',
      'MonitoringworkerFailedRecords',
    ]);
    for (const a of failed) {
      expect(a.p.Dimensions).toEqual([
        { Name: 'FunctionName', Value: { Ref: expect.any(String) } },
      ]);
      expect(a.p.Namespace).toBe('AgentKernel');
    }
  });

  it('authorizer rejections apart from its errors', () => {
    const rejections = alarms(byDefault).filter((a) =>
      a.text.includes('"MetricName":"AuthorizerRejections"'),
    );
    expect(rejections).toHaveLength(1);
  });

  it('API Gateway 5XX and latency for both APIs', () => {
    const text = alarms(byDefault).map((a) => a.text);
    expect(text.filter((t) => t.includes('"MetricName":"5xx"'))).toHaveLength(1);
    expect(text.filter((t) => t.includes('"MetricName":"Latency"'))).toHaveLength(1);
    expect(text.filter((t) => t.includes('"MetricName":"ExecutionError"'))).toHaveLength(1);
    expect(text.filter((t) => t.includes('"MetricName":"IntegrationLatency"'))).toHaveLength(1);
  });

  it('p99 duration above 80 % of the timeout, per function', () => {
    const near = alarms(byDefault).filter((a) => a.id.includes('NearTimeout'));
    expect(near).toHaveLength(FUNCTIONS.length);
    for (const spec of FUNCTIONS) {
      const alarm = near.find((a) =>
        a.id.startsWith(`Monitoring${spec.name.replace('-', '')}NearTimeout`),
      );
      expect(alarm, spec.name).toBeDefined();
      expect(alarm!.p).toMatchObject({
        MetricName: 'Duration',
        ExtendedStatistic: 'p99',
        Threshold: Math.round(spec.timeout.toMilliseconds() * 0.8),
      });
    }
  });

  it('warns at synth when no alarm destination is set, and not when one is', () => {
    Annotations.fromStack(byDefault.stack).hasWarning(
      '*',
      Match.stringLikeRegexp('No alarm destination'),
    );
    const notified = synth({ alarmEmail: 'ops@example.com' });
    expect(
      Annotations.fromStack(notified.stack).findWarning('*', Match.stringLikeRegexp('No alarm')),
    ).toEqual([]);
  });
});

describe('knobs reach the template', () => {
  it('runtime, memory, worker timeout and concurrency, fan-out batch, maxReceiveCount', () => {
    const tuned = synth({
      lambdaRuntime: 'nodejs22.x',
      agentMemoryMb: '2048',
      workerMemoryMb: '512',
      workerTimeoutSeconds: '600',
      workerMaxConcurrency: '100',
      fanoutBatchSize: '5',
      maxReceiveCount: '8',
    });
    const fns = functions(tuned).map(([id, fn]) => [id.replace(/Function.*$/, ''), fn.Properties]);
    for (const [, p] of fns) expect(p.Runtime).toBe('nodejs22.x');
    const of = (name: string) => fns.find(([id]) => id === name)![1];
    expect([of('Worker').MemorySize, of('Http').MemorySize, of('Fanout').MemorySize]).toEqual([
      512, 2048, 256,
    ]);
    expect(of('Worker').Timeout).toBe(600);
    expect(of('Worker').Environment.Variables.JOB_MAX_RECEIVES).toBe('8');
    tuned.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 100 },
      BatchSize: 1,
    });
    tuned.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 5 });
    const queues = Object.values(resourcesOf(tuned.template, 'AWS::SQS::Queue')) as any[];
    const redrives = queues.filter((q) => q.Properties.RedrivePolicy);
    expect(redrives.map((q) => q.Properties.RedrivePolicy.maxReceiveCount)).toEqual([8, 8, 8, 8]);
    // Visibility follows the worker's timeout: six times it.
    expect(queues.map((q) => q.Properties.VisibilityTimeout)).toContain(3600);
    expect(tuned.validationReport.pluginReports).toEqual([]);
  });
});
