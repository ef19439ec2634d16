import { describe, expect, it } from 'vitest';
import {
  CONTEXT_KEYS,
  configFromContext,
  InvalidContextError,
  LOG_RETENTION_DAYS,
  stackNameFromContext,
} from '../../infra/config.js';
import { FUNCTIONS, tunedFunctions } from '../../infra/functions.js';

// Every context knob against what AWS accepts: a bad value fails the synth with a typed error
// naming the knob and the allowed values, instead of a rollback at deploy.
const refused: [key: string, value: unknown, message: RegExp][] = [
  ['logRetentionDays', 13, /logRetentionDays: must be one of .*1, 3, 5, 7, 14, 30/],
  ['logRetentionDays', 0, /logRetentionDays/],
  ['logRetentionDays', 'forever', /logRetentionDays/],
  ['sessionTtlSeconds', 10, /sessionTtlSeconds: must be 60\.\./],
  ['pausedRunTtlSeconds', 1.5, /pausedRunTtlSeconds: must be a whole number/],
  ['eventBatchMaxDelayMs', 0, /eventBatchMaxDelayMs: must be 1\.\.1000 ms/],
  ['eventBatchMaxDelayMs', 1001, /eventBatchMaxDelayMs/],
  ['agentMemoryMb', 127, /agentMemoryMb: must be 128\.\.10240/],
  ['agentMemoryMb', 10_241, /agentMemoryMb: must be 128\.\.10240/],
  ['workerTimeoutSeconds', 901, /workerTimeoutSeconds: must be 60\.\.900 .*900 s/],
  ['workerTimeoutSeconds', 30, /workerTimeoutSeconds: must be 60\.\.900/],
  ['workerMaxConcurrency', 1, /workerMaxConcurrency: must be 2\.\.1000/],
  ['workerMaxConcurrency', 1001, /workerMaxConcurrency/],
  ['fanoutBatchSize', 11, /fanoutBatchSize: must be 1\.\.10 .*FIFO/],
  ['fanoutBatchSize', 0, /fanoutBatchSize/],
  ['maxReceiveCount', 4, /maxReceiveCount: must be 5\.\.1000/],
  ['maxReceiveCount', 1001, /maxReceiveCount/],
  ['alarmEmail', 'ops@example', /alarmEmail/],
  ['alarmTopicArn', 'arn:aws:sqs:eu-west-1:123456789012:q', /alarmTopicArn: an SNS topic ARN/],
  ['apiGatewayAccountRole', 'maybe', /apiGatewayAccountRole: must be create, existing or none/],
  ['lambdaRuntime', 'nodejs18.x', /lambdaRuntime: must be nodejs24\.x or nodejs22\.x/],
  ['deliveryMode', 'carrier-pigeon', /deliveryMode/],
  ['authMode', 'basic', /authMode/],
  ['jwtSecretName', 'has space', /jwtSecretName: must be a Secrets Manager name/],
  ['modelSecretName', 'a*b', /modelSecretName: must be a Secrets Manager name/],
  ['modelParameterName', 'no spaces here!', /modelParameterName: must be an SSM parameter name/],
  ['bedrockModelArns', 'anthropic.claude', /bedrockModelArns: Bedrock model ARNs/],
  ['jwksUrl', 'http://id.example.com/jwks.json', /jwksUrl: must be an https:\/\/ URL/],
  ['jwtIssuer', 'id.example.com', /jwtIssuer: must be an https:\/\/ URL/],
  ['corsOrigins', 'app.example.com', /corsOrigins: each must be \* or an origin/],
  ['corsOrigins', 'https://app.example.com/path', /corsOrigins/],
  ['retainTable', 'yes', /retainTable/],
  ['tableDeletionProtection', 'no', /tableDeletionProtection/],
  ['playground', 'yes', /playground/],
  ['bundleAwsSdk', 'maybe', /bundleAwsSdk/],
  ['agentNames', 'a b', /agentNames/],
  ['tracing', 'cloudwatch,jaeger', /tracing: each must be cloudwatch, none, otlp/],
  ['tracingSecretName', 'a b', /tracingSecretName: must be a Secrets Manager name/],
  ['otlpEndpoint', 'collector:4318', /otlpEndpoint: must be an http/],
  ['langfuseBaseUrl', 'ftp://x', /langfuseBaseUrl: must be an http/],
  ['logfireBaseUrl', 'logfire', /logfireBaseUrl: must be an http/],
  ['traceloopBaseUrl', '//x', /traceloopBaseUrl: must be an http/],
  ['quotas', 'sometimes', /quotas/],
  ['quotaConnections', 0, /quotaConnections: must be at least 1, or none/],
  ['quotaRunsInFlight', 2.5, /quotaRunsInFlight/],
  ['quotaRunsPerMinute', 'lots', /quotaRunsPerMinute/],
  ['quotaTokensPerDay', -5, /quotaTokensPerDay: must be at least 1/],
  ['streamReservedConcurrency', 0, /streamReservedConcurrency: must be 1\.\.900/],
  ['streamReservedConcurrency', 901, /streamReservedConcurrency: must be 1\.\.900/],
];

describe('context knobs refused at synth', () => {
  it.each(refused)('%s = %j', (key, value, message) => {
    let caught: unknown;
    try {
      configFromContext({ [key]: value });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidContextError);
    expect((caught as InvalidContextError).code).toBe('invalid-context');
    expect((caught as Error).message).toMatch(message);
  });

  it('every knob of the schema has a refused case above (a new knob needs one)', () => {
    const covered = new Set(refused.map(([key]) => key));
    const uncovered = CONTEXT_KEYS.filter((key) => !covered.has(key));
    // A module path and the alternative to jwksUrl's trio are free text checked elsewhere.
    expect(uncovered.sort()).toEqual(['agentsEntry', 'jwtAudience']);
  });

  it('names every bad knob at once', () => {
    expect(() => configFromContext({ logRetentionDays: 13, agentMemoryMb: 64 })).toThrow(
      /logRetentionDays: .*; agentMemoryMb: /,
    );
  });

  it('stackName: a CloudFormation stack name', () => {
    expect(stackNameFromContext(undefined)).toBe('AgentKernel');
    expect(stackNameFromContext('Kernel-Dev2')).toBe('Kernel-Dev2');
    for (const bad of ['1kernel', 'kernel_dev', 'x'.repeat(129)]) {
      expect(() => stackNameFromContext(bad)).toThrow(/stackName: must start with a letter/);
    }
  });
});

describe('context knobs accepted', () => {
  const accepted: [key: string, value: unknown, field: string, expected: unknown][] = [
    ['logRetentionDays', '14', 'logRetentionDays', 14],
    ['logRetentionDays', 3653, 'logRetentionDays', 3653],
    ['agentMemoryMb', '10240', 'agentMemoryMb', 10_240],
    ['workerTimeoutSeconds', 900, 'workerTimeoutSeconds', 900],
    ['fanoutBatchSize', '1', 'fanoutBatchSize', 1],
    ['maxReceiveCount', '1000', 'maxReceiveCount', 1000],
    ['apiGatewayAccountRole', 'none', 'apiGatewayAccountRole', 'none'],
    ['lambdaRuntime', 'nodejs22.x', 'lambdaRuntime', 'nodejs22.x'],
    ['tableDeletionProtection', 'false', 'tableDeletionProtection', false],
    [
      'quotas',
      'false',
      'quotas',
      { enabled: false, connections: 20, runsInFlight: 10, runsPerMinute: 60 },
    ],
    ['quotaRunsInFlight', '3', 'quotas.runsInFlight', 3],
    ['quotaRunsPerMinute', 'none', 'quotas', { enabled: true, connections: 20, runsInFlight: 10 }],
    ['quotaTokensPerDay', '2000000', 'quotas.tokensPerDay', 2_000_000],
    ['streamReservedConcurrency', '50', 'streamReservedConcurrency', 50],
    [
      'corsOrigins',
      'https://a.example.com, http://localhost:5173',
      'corsOrigins',
      ['https://a.example.com', 'http://localhost:5173'],
    ],
  ];
  it.each(accepted)('%s = %j', (key, value, field, expected) => {
    expect(configFromContext({ [key]: value })).toHaveProperty(field, expected);
  });

  it('defaults: every retention value is CloudWatch’s; the first deploy in a fresh account works', () => {
    const config = configFromContext({});
    expect(LOG_RETENTION_DAYS).toContain(config.logRetentionDays);
    expect(config).toMatchObject({
      apiGatewayAccountRole: 'create',
      tableDeletionProtection: true,
      lambdaRuntime: 'nodejs24.x',
      agentMemoryMb: 1024,
      workerTimeoutSeconds: 900,
      workerMaxConcurrency: 50,
      fanoutBatchSize: 10,
      maxReceiveCount: 5,
      // Fair use on, with limits a single user never meets and a runaway client does.
      quotas: { enabled: true, connections: 20, runsInFlight: 10, runsPerMinute: 60 },
    });
    expect(config.quotas.tokensPerDay).toBeUndefined();
    expect(config.streamReservedConcurrency).toBeUndefined();
  });
});

describe('the function table within AWS limits', () => {
  it("API-fronted functions end before API Gateway's integration timeout", () => {
    // HTTP APIs end an integration at 30 s; WebSocket APIs at 29 s.
    // A Function URL streams for as long as the function runs (Lambda's 15 min).
    const limit = {
      http: 30,
      $connect: 29,
      $disconnect: 29,
      $default: 29,
      'ws-authorizer': 29,
      'function-url': 901,
    };
    for (const spec of FUNCTIONS.filter((s) => s.route)) {
      expect(spec.timeout.toSeconds(), spec.name).toBeLessThan(limit[spec.route!]);
    }
  });

  it("every tuning stays within Lambda's limits at both ends of each knob", () => {
    for (const tuning of [
      { agentMemoryMb: 128, workerTimeoutSeconds: 60, workerMaxConcurrency: 2, fanoutBatchSize: 1 },
      {
        agentMemoryMb: 10_240,
        workerTimeoutSeconds: 900,
        workerMaxConcurrency: 1000,
        fanoutBatchSize: 10,
      },
    ]) {
      for (const spec of tunedFunctions(tuning)) {
        expect(spec.memorySize).toBeGreaterThanOrEqual(128);
        expect(spec.memorySize).toBeLessThanOrEqual(10_240);
        expect(spec.timeout.toSeconds()).toBeLessThanOrEqual(900);
        if (spec.trigger) {
          expect(spec.trigger.batchSize).toBeLessThanOrEqual(10);
          expect(spec.trigger.maxConcurrency).toBeGreaterThanOrEqual(2);
        }
      }
    }
  });
});
