import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Grant, grantsOf, type Synthesised, stubFunctionsDir, synthesise } from './helpers.js';

// Least privilege, function by function: every statement of every policy on a function's role,
// compared with the exact list of what its code does (infra/functions.ts says why for each).
const SECRET = 'agent-kernel/openai';
const MODEL = 'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-x';
let dir: string;
let fanout: Synthesised;
let direct: Synthesised;

beforeAll(() => {
  dir = stubFunctionsDir();
  const context = { modelSecretName: SECRET, bedrockModelArns: MODEL };
  fanout = synthesise({ functionsDir: dir, bundle: false, context });
  direct = synthesise({
    functionsDir: dir,
    bundle: false,
    context: { ...context, deliveryMode: 'direct' },
  });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const synth of [fanout, direct]) rmSync(synth.outdir, { recursive: true, force: true });
});

const ARN = 'arn:<AWS::Partition>';
const REGION_ACCOUNT = '<AWS::Region>:<AWS::AccountId>';
const items = (partitions: string[], ...actions: string[]): Grant => ({
  actions: actions.map((action) => `dynamodb:${action}`).sort(),
  resources: ['StoreTable.Arn'],
  condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': partitions } },
});
const sessions = (...actions: string[]) => items(['SESSION#*'], ...actions);
const connections = (...actions: string[]) => items(['CONN#*'], ...actions);
const subscriptions = (...actions: string[]) => items(['SUBS#*'], ...actions);
const idempotency = items(['IDEMPOTENCY#*'], 'DeleteItem', 'GetItem', 'PutItem', 'UpdateItem');
const quotas = (...actions: string[]) => items(['QUOTA#*'], ...actions);
const QUOTAS = ['GetItem', 'PutItem', 'UpdateItem'] as const;
const RUN_SESSIONS = [
  'BatchWriteItem',
  'DeleteItem',
  'GetItem',
  'PutItem',
  'Query',
  'UpdateItem',
] as const;
const consume = (queue: string): Grant => ({
  actions: [
    'sqs:ChangeMessageVisibility',
    'sqs:DeleteMessage',
    'sqs:GetQueueAttributes',
    'sqs:GetQueueUrl',
    'sqs:ReceiveMessage',
  ],
  resources: [`${queue}Queue.Arn`],
});
const send = (queue: string): Grant => ({
  actions: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
  resources: [`${queue}Queue.Arn`],
});
const manageConnections: Grant = {
  actions: ['execute-api:ManageConnections'],
  resources: [`${ARN}:execute-api:${REGION_ACCOUNT}:WebSocketApi/live/POST/@connections/*`],
};
const modelSecret: Grant = {
  actions: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
  resources: [`${ARN}:secretsmanager:${REGION_ACCOUNT}:secret:${SECRET}-??????`],
};
// The HS256 secret the stack creates (jwtSecret=create, the default): the authorizer reads it at
// cold start (never in its environment). With jwtSecret=existing, by name (first-deploy.test.ts).
const jwtSecret: Grant = {
  actions: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
  resources: ['JwtSecret'],
};
const bedrock: Grant = {
  actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
  resources: [MODEL],
};
// Every function: its own log group, and X-Ray (which has no resource-level permissions).
const base = (fn: string): Grant[] => [
  {
    actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    resources: [
      `${ARN}:logs:${REGION_ACCOUNT}:log-group:${fn}FunctionLogs`,
      `${fn}FunctionLogs.Arn`,
    ].sort(),
  },
  { actions: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], resources: ['*'] },
];
const sorted = (grants: Grant[]) =>
  [...grants].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

const EXPECTED: Record<string, Grant[]> = {
  Invoke: [sessions(...RUN_SESSIONS), idempotency, quotas(...QUOTAS), modelSecret, bedrock],
  Http: [
    sessions(...RUN_SESSIONS),
    idempotency,
    quotas(...QUOTAS, 'Query'),
    send('Run'),
    modelSecret,
    bedrock,
  ],
  Worker: [
    sessions(...RUN_SESSIONS),
    idempotency,
    quotas('UpdateItem'),
    consume('Run'),
    send('Events'),
    send('ApprovalRequests'),
    modelSecret,
    bedrock,
  ],
  Fanout: [
    connections('DeleteItem', 'GetItem'),
    subscriptions('BatchWriteItem', 'Query'),
    consume('Events'),
    manageConnections,
  ],
  Approvals: [
    sessions('GetItem', 'PutItem', 'Query'),
    idempotency,
    consume('Approvals'),
    send('Run'),
  ],
  WsConnect: [connections('PutItem'), quotas(...QUOTAS)],
  WsDisconnect: [connections('DeleteItem'), subscriptions('BatchWriteItem'), quotas('UpdateItem')],
  WsMessage: [
    sessions('GetItem', 'PutItem', 'Query'),
    idempotency,
    quotas(...QUOTAS),
    connections('DeleteItem', 'UpdateItem'),
    subscriptions('BatchWriteItem', 'DeleteItem', 'PutItem'),
    send('Run'),
    manageConnections,
  ],
  Authorizer: [jwtSecret],
};

describe('each function gets only what its code uses (sqs-fanout delivery)', () => {
  it.each(Object.entries(EXPECTED))('%s', (fn, grants) => {
    expect(grantsOf(fanout.template, `${fn}Function`)).toEqual(sorted([...base(fn), ...grants]));
  });

  it('fan-out reads no session: every table grant is held to CONN# or SUBS# partitions', () => {
    const grants = grantsOf(fanout.template, 'FanoutFunction');
    const table = grants.filter((g) => g.actions.some((a) => a.startsWith('dynamodb:')));
    expect(table.length).toBeGreaterThan(0);
    for (const grant of table) {
      const leading = (grant.condition as any)?.['ForAllValues:StringLike']?.[
        'dynamodb:LeadingKeys'
      ];
      expect(leading).toEqual(expect.arrayContaining([expect.stringMatching(/^(CONN|SUBS)#\*$/)]));
      expect(leading).toHaveLength(1);
    }
    expect(JSON.stringify(grants)).not.toContain('SESSION#');
    expect(JSON.stringify(grants)).not.toContain('sqs:SendMessage');
  });

  it('no function may Scan, batch-read or touch the table without a LeadingKeys condition', () => {
    for (const fn of Object.keys(EXPECTED)) {
      for (const grant of grantsOf(fanout.template, `${fn}Function`)) {
        const dynamo = grant.actions.filter((a) => a.startsWith('dynamodb:'));
        if (dynamo.length === 0) continue;
        // ForAllValues is vacuously true for a request without partition keys, such as a Scan.
        expect(dynamo).not.toContain('dynamodb:Scan');
        expect(dynamo).not.toContain('dynamodb:BatchGetItem');
        expect(dynamo.some((a) => a.includes('*'))).toBe(false);
        expect(grant.condition).toEqual({
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [expect.stringMatching(/#\*$/)] },
        });
      }
    }
  });

  it('the authorizer has no table, queue or API access; only its own secret', () => {
    const actions = grantsOf(fanout.template, 'AuthorizerFunction').flatMap((g) => g.actions);
    expect(actions.filter((a) => !/^(logs|xray|secretsmanager):/.test(a))).toEqual([]);
  });
});

describe('fair use off (quotas=false)', () => {
  it('no function may touch a QUOTA# item, and none is told to meter', () => {
    const off = synthesise({ functionsDir: dir, bundle: false, context: { quotas: 'false' } });
    try {
      for (const fn of [...Object.keys(EXPECTED), 'Stream']) {
        expect(JSON.stringify(grantsOf(off.template, `${fn}Function`))).not.toContain('QUOTA#');
      }
      expect(JSON.stringify(off.template)).not.toContain('QUOTA_RUNS_IN_FLIGHT');
    } finally {
      rmSync(off.outdir, { recursive: true, force: true });
    }
  });
});

describe('direct delivery', () => {
  it('the worker posts to subscribers itself: no events queue, the fan-out grants instead', () => {
    expect(grantsOf(direct.template, 'WorkerFunction')).toEqual(
      sorted([
        ...base('Worker'),
        sessions(...RUN_SESSIONS),
        idempotency,
        quotas('UpdateItem'),
        connections('DeleteItem', 'GetItem'),
        subscriptions('BatchWriteItem', 'Query'),
        consume('Run'),
        send('ApprovalRequests'),
        manageConnections,
        modelSecret,
        bedrock,
      ]),
    );
  });

  it('the other functions are granted as with sqs-fanout', () => {
    for (const fn of ['Invoke', 'Http', 'Approvals', 'WsConnect', 'WsDisconnect', 'WsMessage']) {
      expect(grantsOf(direct.template, `${fn}Function`)).toEqual(
        grantsOf(fanout.template, `${fn}Function`),
      );
    }
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('is clean with direct delivery too', () => {
    expect(direct.validationReport.pluginReports).toEqual([]);
  });
});
