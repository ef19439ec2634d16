import { rmSync } from 'node:fs';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_NAMES } from '../../infra/functions.js';
import { TABLE } from '../../lib/stores/dynamodb/table.js';
import {
  logicalId,
  resourcesOf,
  type Synthesised,
  stubFunctionsDir,
  synthesise,
} from './helpers.js';

// One synth for the whole file: every function of the table, from stub entries, not bundled
// (synth.test.ts bundles the real functions once; config.test.ts checks the agents alias).
let synth: Synthesised;
let dir: string;

beforeAll(() => {
  dir = stubFunctionsDir();
  synth = synthesise({
    functionsDir: dir,
    bundle: false,
    context: {
      modelSecretName: 'agent-kernel/openai',
      bedrockModelArns: 'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-x',
      // The triggers sized for a 1,000-execution account (the default plans for 10).
      accountConcurrency: '1000',
    },
  });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(synth.outdir, { recursive: true, force: true });
});

const fn = (name: string) => logicalId(synth.template, 'AWS::Lambda::Function', `${name}Function`);
const queue = (name: string) => logicalId(synth.template, 'AWS::SQS::Queue', `${name}Queue`);
const dlq = (name: string) => logicalId(synth.template, 'AWS::SQS::Queue', `${name}QueueDlq`);

describe('table', () => {
  it('takes its keys from lib/stores/dynamodb/table.ts and has TTL, PITR and encryption', () => {
    synth.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    synth.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
        ],
        BillingMode: TABLE.billingMode,
        TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      },
    });
  });
});

describe('queues', () => {
  it.each([
    ['Run', true, 5, 15 * 60 * 6],
    ['Events', true, 5, 30 * 6],
    ['Approvals', false, 5, 30 * 6],
    ['ApprovalRequests', false, 5, 300],
  ])('%s: FIFO %s, DLQ after %i receives, visibility %i s', (name, fifo, receives, visibility) => {
    const resources = resourcesOf(synth.template, 'AWS::SQS::Queue');
    const main = resources[queue(name)]!.Properties;
    const dead = resources[dlq(name)]!.Properties;
    expect(main.FifoQueue).toBe(fifo ? true : undefined);
    expect(dead.FifoQueue).toBe(fifo ? true : undefined);
    // High-throughput FIFO: dedup per message group (session), throughput per group.
    expect(main.DeduplicationScope).toBe(fifo ? 'messageGroup' : undefined);
    expect(main.FifoThroughputLimit).toBe(fifo ? 'perMessageGroupId' : undefined);
    expect(main.VisibilityTimeout).toBe(visibility);
    expect(main.SqsManagedSseEnabled).toBe(true);
    expect(main.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlq(name), 'Arn'] },
      maxReceiveCount: receives,
    });
  });

  it('refuses every request without TLS', () => {
    const policies = Object.values(resourcesOf(synth.template, 'AWS::SQS::QueuePolicy'));
    expect(policies).toHaveLength(8);
    for (const policy of policies) {
      expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    }
  });

  it('has a visibility timeout above its consumer timeout', () => {
    const functions = resourcesOf(synth.template, 'AWS::Lambda::Function');
    const queues = resourcesOf(synth.template, 'AWS::SQS::Queue');
    for (const [consumer, source] of [
      ['Worker', 'Run'],
      ['Fanout', 'Events'],
      ['Approvals', 'Approvals'],
    ] as const) {
      const timeout = functions[fn(consumer)]!.Properties.Timeout;
      expect(queues[queue(source)]!.Properties.VisibilityTimeout).toBeGreaterThan(timeout);
    }
  });
});

describe('functions', () => {
  it('deploys every function of the table: Node.js 24, ARM64, X-Ray, own log group', () => {
    const functions = Object.values(resourcesOf(synth.template, 'AWS::Lambda::Function'));
    expect(functions).toHaveLength(FUNCTION_NAMES.length);
    for (const { Properties: p } of functions) {
      expect(p.Runtime).toBe('nodejs24.x');
      expect(p.Architectures).toEqual(['arm64']);
      expect(p.TracingConfig).toEqual({ Mode: 'Active' });
      expect(p.Handler).toBe('index.handler');
      expect(p.LoggingConfig.LogGroup.Ref).toMatch(/Logs/);
    }
    synth.template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('passes names and endpoints, never secret values', () => {
    const env = (name: string) =>
      resourcesOf(synth.template, 'AWS::Lambda::Function')[fn(name)]!.Properties.Environment
        .Variables;
    expect(env('Worker')).toMatchObject({
      TABLE_NAME: { Ref: expect.stringMatching(/^StoreTable/) },
      EVENTS_QUEUE_URL: { Ref: queue('Events') },
      APPROVAL_REQUESTS_QUEUE_URL: { Ref: queue('ApprovalRequests') },
      MODEL_SECRET_NAME: 'agent-kernel/openai',
      DELIVERY_MODE: 'sqs-fanout',
    });
    expect(env('Worker').WEBSOCKET_ENDPOINT).toBeUndefined();
    // Stored events are kept a day by default, on every function that stores or reads them.
    for (const name of ['Worker', 'WsMessage', 'Http']) {
      expect(env(name).EVENTS_TTL_SECONDS, name).toBe('86400');
    }
    expect(env('WsMessage')).toMatchObject({
      RUN_QUEUE_URL: { Ref: queue('Run') },
      WEBSOCKET_ENDPOINT: expect.anything(),
    });
    expect(env('Authorizer').AUTH_MODE).toBe('hs256');
    // The name only: the authorizer reads the value at cold start (deploy-ready.test.ts).
    expect(env('Authorizer').JWT_SECRET_NAME).toBe('agent-kernel/dev-jwt-secret');
    expect(env('Authorizer').JWT_SECRET).toBeUndefined();
    expect(env('Authorizer').TABLE_NAME).toBeUndefined();
  });
});

describe('SQS event sources', () => {
  it.each([
    ['Worker', 'Run', 1, 50],
    ['Fanout', 'Events', 10, 20],
    ['Approvals', 'Approvals', 10, 5],
  ])('%s reads the %s queue (batch %i, max concurrency %i)', (name, source, batch, max) => {
    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fn(name) },
      EventSourceArn: { 'Fn::GetAtt': [queue(source), 'Arn'] },
      BatchSize: batch,
      ScalingConfig: { MaximumConcurrency: max },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });
});

describe('WebSocket API', () => {
  it('routes $connect through the REQUEST authorizer, $disconnect and $default', () => {
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'WEBSOCKET',
      RouteSelectionExpression: '$request.body.action',
    });
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      IdentitySource: ['route.request.querystring.token'],
    });
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: '$connect',
      AuthorizationType: 'CUSTOM',
    });
    for (const key of ['$disconnect', '$default']) {
      synth.template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: key,
        AuthorizationType: 'NONE',
      });
    }
  });

  it('has a stage with throttling and access logs', () => {
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: 'live',
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: {
        DestinationArn: Match.anyValue(),
        Format: Match.stringLikeRegexp('connectionId'),
      },
    });
  });
});

describe('HTTP API', () => {
  it('has the routes of DESIGN.md, all but /health behind the authorizer', () => {
    const routes = Object.values(resourcesOf(synth.template, 'AWS::ApiGatewayV2::Route'))
      .map((r) => r.Properties)
      .filter((p) => p.RouteKey.includes('/'));
    expect(routes.map((p) => `${p.RouteKey} ${p.AuthorizationType}`).sort()).toEqual([
      'DELETE /sessions/{id} CUSTOM',
      'GET /agents CUSTOM',
      'GET /approvals CUSTOM',
      'GET /health NONE',
      'GET /sessions CUSTOM',
      'GET /sessions/{id} CUSTOM',
      'GET /sessions/{id}/runs/{runId} CUSTOM',
      'GET /sessions/{id}/runs/{runId}/events CUSTOM',
      'GET /sessions/{id}/runs/{runId}/timeline CUSTOM',
      'GET /sessions/{id}/turns CUSTOM',
      'GET /usage CUSTOM',
      'POST /runs CUSTOM',
      'POST /sessions/{id}/runs/{runId}/decisions CUSTOM',
    ]);
  });

  it('hs256: the Lambda authorizer (payload 1.0, IAM policy, no caching) guards the routes', () => {
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      AuthorizerPayloadFormatVersion: '1.0',
      IdentitySource: ['$request.header.Authorization'],
      AuthorizerResultTtlInSeconds: 0,
    });
    // The http function reads a v2 event: the authorizer's context under authorizer.lambda.
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
  });

  it('answers CORS preflights and logs and throttles its stage', () => {
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: Match.objectLike({ AllowOrigins: ['*'] }),
    });
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
  });
});

describe('monitoring and outputs', () => {
  it('alarms on dead letters, error rate, throttles and message age; has a dashboard', () => {
    const alarms = Object.values(resourcesOf(synth.template, 'AWS::CloudWatch::Alarm'));
    const named = (metric: string) =>
      alarms.filter((a) => JSON.stringify(a.Properties).includes(metric)).length;
    expect(named('ApproximateNumberOfMessagesVisible')).toBe(4);
    expect(named('ApproximateAgeOfOldestMessage')).toBe(4);
    expect(named('Throttles')).toBe(FUNCTION_NAMES.length);
    expect(named('100 * errors / MAX([invocations, 1])')).toBe(FUNCTION_NAMES.length);
    for (const metric of ['PostTurnStepFailures', 'RunTimeouts', 'ConnectionsDropped']) {
      expect(named(`"MetricName":"${metric}"`), metric).toBe(1);
    }
    synth.template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    // Without alarmEmail or alarmTopicArn nobody is notified (config.test.ts has both).
    synth.template.resourceCountIs('AWS::SNS::Topic', 0);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toBeUndefined();
  });

  it('outputs the URLs, queue URLs and table name', () => {
    const outputs = Object.keys(synth.template.findOutputs('*'));
    for (const name of [
      'WebSocketUrl',
      'HttpUrl',
      'RunQueueUrl',
      'EventsQueueUrl',
      'ApprovalsQueueUrl',
      'ApprovalRequestsQueueUrl',
      'TableName',
    ]) {
      expect(outputs).toContain(name);
    }
  });
});

describe('least privilege', () => {
  const statements = () =>
    Object.values(resourcesOf(synth.template, 'AWS::IAM::Policy')).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as any[],
    );
  const list = (value: unknown) => (Array.isArray(value) ? value : [value]);

  it('grants no wildcard action, and `*` resources only to X-Ray', () => {
    for (const statement of statements()) {
      for (const action of list(statement.Action)) expect(action).not.toMatch(/\*/);
      if (list(statement.Resource).includes('*')) {
        expect(statement.Action).toEqual(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']);
      }
    }
  });

  it('scopes ManageConnections to POST @connections of the WebSocket stage', () => {
    const manage = statements().filter((s) => s.Action === 'execute-api:ManageConnections');
    expect(manage).toHaveLength(2);
    const api = logicalId(synth.template, 'AWS::ApiGatewayV2::Api', 'WebSocketApi');
    for (const statement of manage) {
      const arn = JSON.stringify(statement.Resource);
      expect(arn).toContain(`{"Ref":"${api}"}`);
      expect(arn).toContain('/live/POST/@connections/*');
    }
  });

  it('grants the model secret by name and Bedrock on the configured models only', () => {
    const all = JSON.stringify(statements());
    expect(all).toContain(':secret:agent-kernel/openai-??????');
    const bedrock = statements().filter((s) => list(s.Action).includes('bedrock:InvokeModel'));
    // The functions that run agents: invoke, http, worker, stream.
    expect(bedrock).toHaveLength(4);
    for (const s of bedrock) {
      expect(s.Resource).toBe('arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-x');
    }
  });
});

describe('cdk-nag AwsSolutions and Serverless', () => {
  it('reports nothing (AwsSolutions and Serverless) that was not acknowledged with a reason', () => {
    expect(synth.validationReport.pluginReports).toEqual([]);
  });
});
