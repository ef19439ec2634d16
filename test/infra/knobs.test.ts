import { describe, expect, it } from 'vitest';
import {
  CONTEXT_KEYS,
  configFromContext,
  InvalidContextError,
  LOG_RETENTION_DAYS,
  stackNameFromContext,
} from '../../infra/config.js';
import { WORKER_MEMORY_MB } from '../../infra/config-memory.js';
import { FUNCTIONS, tunedFunctions } from '../../infra/functions.js';

// Every context knob against what AWS accepts: a bad value fails the synth with a typed error
// naming the knob and the allowed values, instead of a rollback at deploy.
const refused: [key: string, value: unknown, message: RegExp][] = [
  ['logRetentionDays', 13, /logRetentionDays: must be one of .*1, 3, 5, 7, 14, 30/],
  ['logRetentionDays', 0, /logRetentionDays/],
  ['logRetentionDays', 'forever', /logRetentionDays/],
  ['sessionTtlSeconds', 10, /sessionTtlSeconds: must be 60\.\./],
  ['pausedRunTtlSeconds', 1.5, /pausedRunTtlSeconds: must be a whole number/],
  ['eventsTtlSeconds', 30, /eventsTtlSeconds: must be 60\.\./],
  ['eventBatchMaxDelayMs', 0, /eventBatchMaxDelayMs: must be 1\.\.1000 ms/],
  ['eventBatchMaxDelayMs', 1001, /eventBatchMaxDelayMs/],
  ['agentMemoryMb', 127, /agentMemoryMb: must be 128\.\.10240/],
  ['agentMemoryMb', 10_241, /agentMemoryMb: must be 128\.\.10240/],
  ['workerMemoryMb', 127, /workerMemoryMb: must be 128\.\.10240/],
  ['workerMemoryMb', 'lots', /workerMemoryMb: must be a whole number 128\.\.10240/],
  ['workerTimeoutSeconds', 901, /workerTimeoutSeconds: must be 60\.\.900 .*900 s/],
  ['workerTimeoutSeconds', 30, /workerTimeoutSeconds: must be 60\.\.900/],
  ['workerMaxConcurrency', 1, /workerMaxConcurrency: must be 2\.\.1000/],
  ['workerMaxConcurrency', 1001, /workerMaxConcurrency/],
  ['fanoutBatchSize', 11, /fanoutBatchSize: must be 1\.\.10 .*FIFO/],
  ['fanoutBatchSize', 0, /fanoutBatchSize/],
  ['maxReceiveCount', 4, /maxReceiveCount: must be 5\.\.1000/],
  ['maxReceiveCount', 1001, /maxReceiveCount/],
  ['alarmEmail', 'ops@example', /alarmEmail/],
  [
    'alarmTopicArn',
    'arn:aws:sqs:eu-west-1:123456789012:q',
    /alarmTopicArn: must be an SNS topic ARN/,
  ],
  ['apiGatewayAccountRole', 'maybe', /apiGatewayAccountRole: must be create, existing or none/],
  ['lambdaRuntime', 'nodejs18.x', /lambdaRuntime: must be nodejs24\.x or nodejs22\.x/],
  ['deliveryMode', 'carrier-pigeon', /deliveryMode/],
  ['authMode', 'basic', /authMode/],
  ['jwtSecretName', 'has space', /jwtSecretName: must be a Secrets Manager name/],
  ['modelSecretName', 'a*b', /modelSecretName: must be a Secrets Manager name/],
  ['modelParameterName', 'no spaces here!', /modelParameterName: must be an SSM parameter name/],
  ['bedrockModelArns', 'anthropic.claude', /bedrockModelArns: each must be a Bedrock model/],
  ['jwksUrl', 'http://id.example.com/jwks.json', /jwksUrl: must be an https:\/\/ URL/],
  ['jwtIssuer', 'id.example.com', /jwtIssuer: must be an https:\/\/ URL/],
  ['corsOrigins', 'app.example.com', /corsOrigins: each must be \* or an origin/],
  ['corsOrigins', 'https://app.example.com/path', /corsOrigins/],
  ['retainTable', 'yes', /retainTable: must be true or false/],
  ['tableDeletionProtection', 'no', /tableDeletionProtection: must be true or false/],
  ['playground', 'yes', /playground: must be true or false/],
  ['bundleAwsSdk', 'maybe', /bundleAwsSdk: must be true or false/],
  ['agentNames', 'a b', /agentNames: each must be 1-64 letters/],
  ['agentsEntry', 7, /agentsEntry: must be the path/],
  ['jwtAudience', 5, /jwtAudience: must be the audience/],
  ['agentMemoryMb', 'lots', /agentMemoryMb: must be a whole number 128\.\.10240/],
  ['deliveryMode', 'carrier-pigeon', /deliveryMode: must be sqs-fanout or direct/],
  ['authMode', 'basic', /authMode: must be hs256 or jwks/],
  ['alarmEmail', 'ops@example', /alarmEmail: each must be an e-mail address/],
  ['corsOrigins', 42, /corsOrigins: must be a comma-separated list/],
  ['jwtSecret', 'maybe', /jwtSecret: must be create .* or existing/],
  ['accountConcurrency', 5, /accountConcurrency: must be 10\.\.100000/],
  ['accountConcurrency', 'many', /accountConcurrency: must be a whole number/],
  ['fanoutMaxConcurrency', 1, /fanoutMaxConcurrency: must be 2\.\.1000/],
  ['approvalsMaxConcurrency', 1001, /approvalsMaxConcurrency: must be 2\.\.1000/],
  ['secretKmsKeyArns', 'alias/mine', /secretKmsKeyArns: each must be a KMS key ARN/],
  ['approvalEmail', 'boss', /approvalEmail: each must be an e-mail address/],
  ['approvalTopicArn', 'arn:aws:sns:eu-west-1:1:t', /approvalTopicArn: must be a standard SNS/],
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
  ['mcpAgentTools', 'demo,bad name', /mcpAgentTools: each must be \* or an agent name/],
];

const BEDROCK = 'arn:aws:bedrock:eu-west-1::foundation-model/anthropic.claude-3-haiku';

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
    // What it accepts, never zod's bare "Invalid input" / "Invalid option".
    expect((caught as Error).message).not.toMatch(/Invalid (input|option|string)/);
  });

  it('a misspelt key is an error naming the nearest known key, not silently ignored', () => {
    expect(() => configFromContext({ logRetentionDay: 7 })).toThrow(
      /unknown key logRetentionDay \(did you mean logRetentionDays\?\)/,
    );
    expect(() => configFromContext({ retaintable: 'true', alarmEmial: 'a@b.co' })).toThrow(
      /retaintable \(did you mean retainTable\?\), alarmEmial \(did you mean alarmEmail\?\)/,
    );
    // CDK's own keys (feature flags, aws:cdk:*, cdk.json's cli-telemetry) and the app's pass.
    expect(() =>
      configFromContext({
        '@aws-cdk/core:newStyleStackSynthesis': true,
        'aws:cdk:bundling-stacks': [],
        'cli-telemetry': false,
        stackName: 'Kernel',
      }),
    ).not.toThrow();
  });

  it('every knob of the schema has a refused case above (a new knob needs one)', () => {
    const covered = new Set(refused.map(([key]) => key));
    const uncovered = CONTEXT_KEYS.filter((key) => !covered.has(key));
    expect(uncovered.sort()).toEqual([]);
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
    ['mcpAgentTools', 'demo, other', 'mcpAgentTools', ['demo', 'other']],
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
      workerMemoryMb: WORKER_MEMORY_MB,
      workerTimeoutSeconds: 900,
      fanoutBatchSize: 10,
      maxReceiveCount: 5,
      // Sized for a new account's 10 concurrent executions: 8 for the triggers, 2 for the APIs.
      accountConcurrency: 10,
      workerMaxConcurrency: 4,
      fanoutMaxConcurrency: 2,
      approvalsMaxConcurrency: 2,
      auth: { mode: 'hs256', secretName: 'agent-kernel/dev-jwt-secret', create: true },
      modelSecret: { secretName: 'agent-kernel/model-key' },
      // Fair use on, with limits a single user never meets and a runaway client does.
      quotas: { enabled: true, connections: 20, runsInFlight: 10, runsPerMinute: 60 },
    });
    expect(config.quotas.tokensPerDay).toBeUndefined();
    expect(config.streamReservedConcurrency).toBeUndefined();
  });

  it.each([
    [10, 4, 2, 2],
    [50, 20, 10, 2],
    [100, 40, 20, 5],
    [1000, 50, 20, 5],
    [5000, 50, 20, 5],
  ])(
    'accountConcurrency=%i sizes worker %i, fan-out %i, approvals %i; a named one wins',
    (quota, worker, fanout, approvals) => {
      expect(configFromContext({ accountConcurrency: String(quota) })).toMatchObject({
        workerMaxConcurrency: worker,
        fanoutMaxConcurrency: fanout,
        approvalsMaxConcurrency: approvals,
      });
      expect(worker + fanout + approvals).toBeLessThanOrEqual(quota - 2);
      expect(
        configFromContext({ accountConcurrency: quota, workerMaxConcurrency: 200 }),
      ).toMatchObject({ workerMaxConcurrency: 200, fanoutMaxConcurrency: fanout });
    },
  );

  it('the model key: named by default; Bedrock alone or none leave it out; SSM instead', () => {
    expect(configFromContext({ bedrockModelArns: BEDROCK }).modelSecret).toBeUndefined();
    expect(configFromContext({ modelSecretName: 'none' }).modelSecret).toBeUndefined();
    expect(configFromContext({ modelParameterName: '/kernel/key' }).modelSecret).toEqual({
      parameterName: '/kernel/key',
    });
    expect(
      configFromContext({ modelSecretName: 'mine/key', bedrockModelArns: BEDROCK }).modelSecret,
    ).toEqual({ secretName: 'mine/key' });
  });

  it('approval requests go to approvalEmail, else to the alarm addresses, or to your topic', () => {
    expect(configFromContext({ alarmEmail: 'ops@example.com' }).approvalNotifications).toEqual({
      emails: ['ops@example.com'],
    });
    expect(
      configFromContext({ alarmEmail: 'ops@example.com', approvalEmail: 'boss@example.com' })
        .approvalNotifications,
    ).toEqual({ emails: ['boss@example.com'] });
    const topicArn = 'arn:aws:sns:eu-west-1:123456789012:approvals';
    expect(configFromContext({ approvalTopicArn: topicArn }).approvalNotifications).toEqual({
      topicArn,
    });
    expect(configFromContext({}).approvalNotifications).toBeUndefined();
    expect(() =>
      configFromContext({ approvalTopicArn: topicArn, approvalEmail: 'boss@example.com' }),
    ).toThrow(/not both/);
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

  it('the worker takes workerMemoryMb (sized); http, invoke and stream take agentMemoryMb', () => {
    const specs = tunedFunctions(configFromContext({ workerMemoryMb: 640, agentMemoryMb: 1536 }));
    const memory = Object.fromEntries(specs.map((spec) => [spec.name, spec.memorySize]));
    expect(memory).toMatchObject({ worker: 640, http: 1536, invoke: 1536, stream: 1536 });
    expect(memory.fanout).toBe(256);
    const defaults = tunedFunctions(configFromContext({}));
    expect(defaults.find((spec) => spec.name === 'worker')?.memorySize).toBe(WORKER_MEMORY_MB);
  });

  it("every tuning stays within Lambda's limits at both ends of each knob", () => {
    for (const tuning of [
      {
        agentMemoryMb: 128,
        workerMemoryMb: 128,
        workerTimeoutSeconds: 60,
        workerMaxConcurrency: 2,
        fanoutBatchSize: 1,
        fanoutMaxConcurrency: 2,
        approvalsMaxConcurrency: 2,
      },
      {
        agentMemoryMb: 10_240,
        workerMemoryMb: 10_240,
        workerTimeoutSeconds: 900,
        workerMaxConcurrency: 1000,
        fanoutBatchSize: 10,
        fanoutMaxConcurrency: 1000,
        approvalsMaxConcurrency: 1000,
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
