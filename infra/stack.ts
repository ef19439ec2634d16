import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  Annotations,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import type { CfnFunction, FunctionUrl } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { KernelConfig } from './config.js';
import { KernelAlarmTopic } from './constructs/alarm-topic.js';
import { ApiGatewayAccountRole } from './constructs/api-gateway-account.js';
import { ApprovalRequestsPipe } from './constructs/approval-notifications.js';
import { type HttpAuth, KernelHttpApi } from './constructs/http-api.js';
import { KernelFunction, PROJECT_ROOT } from './constructs/kernel-function.js';
import { KernelMonitoring } from './constructs/monitoring.js';
import { KernelQueue } from './constructs/queues.js';
import { streamUrlOf } from './constructs/stream-url.js';
import { KernelTable } from './constructs/table.js';
import { KernelWebSocketApi } from './constructs/websocket-api.js';
import {
  type Access,
  consumerOf,
  type DynamoAction,
  type FunctionName,
  type FunctionSpec,
  type ItemFamily,
  POST_TO_SUBSCRIBERS,
  type QueueName,
  type TableAccess,
  tunedFunctions,
} from './functions.js';
import { grantModelAccess } from './model-access.js';
import { fairUseEnv, functionId, grantTable } from './stack-grants.js';
import { stackOutputs } from './stack-outputs.js';
import { grantSecretKeys, jwtSecret } from './stack-secrets.js';
import { wireTracing } from './tracing.js';

export interface AgentKernelStackProps extends StackProps {
  readonly config: KernelConfig;
  /** Where `<name>.ts` entries are looked for; a function without its file is left out. */
  readonly functionsDir?: string;
}

const WEBSOCKET_FUNCTIONS: readonly FunctionName[] = [
  'ws-connect',
  'ws-disconnect',
  'ws-message',
  'authorizer',
];
// Lambda's guidance for SQS event sources: visibility at least six times the function timeout.
const VISIBILITY_FACTOR = 6;
// approval-requests is read by systems outside the stack: give them time to handle a message.
const EXTERNAL_VISIBILITY = Duration.minutes(5);
const THROTTLE = { rateLimit: 50, burstLimit: 100 };
type Families = [ItemFamily, readonly DynamoAction[]][];

/** Everything the kernel needs in one account and region: `cdk deploy` creates all of it. */
export class AgentKernelStack extends Stack {
  readonly table: KernelTable;
  readonly queues: Partial<Record<QueueName, KernelQueue>> = {};
  readonly functions = new Map<FunctionName, KernelFunction>();
  readonly webSocket?: KernelWebSocketApi;
  readonly http?: KernelHttpApi;
  /** The stream function's Function URL (RESPONSE_STREAM): POST /runs as SSE. */
  readonly streamUrl?: FunctionUrl;
  /** Where alarms notify (`alarmEmail` creates it, `alarmTopicArn` names yours); else none. */
  readonly alarmTopic?: ITopic;
  /** Where approval requests are published (the pipe off the approval-requests queue). */
  readonly approvalRequests?: ApprovalRequestsPipe;
  readonly config: KernelConfig;

  constructor(scope: Construct, id: string, props: AgentKernelStackProps) {
    super(scope, id, props);
    const config = props.config;
    this.config = config;
    const dir = props.functionsDir ?? resolve(PROJECT_ROOT, 'functions');
    const logRetention = config.logRetentionDays as RetentionDays;
    const logRemovalPolicy = RemovalPolicy.DESTROY;

    const specs = tunedFunctions(config);
    this.table = new KernelTable(this, 'Store', {
      retain: config.retainTable,
      deletionProtection: config.tableDeletionProtection,
    });
    for (const name of ['run', 'events', 'approvals', 'approvalRequests'] as const) {
      if (name === 'events' && config.deliveryMode !== 'sqs-fanout') continue;
      const consumer = consumerOf(name, specs);
      this.queues[name] = new KernelQueue(this, `${name[0]!.toUpperCase()}${name.slice(1)}Queue`, {
        fifo: name === 'run' || name === 'events',
        visibilityTimeout: consumer
          ? Duration.seconds(consumer.timeout.toSeconds() * VISIBILITY_FACTOR)
          : EXTERNAL_VISIBILITY,
        // The worker's JOB_MAX_RECEIVES too: its last receive reports instead of retrying.
        maxReceiveCount: config.maxReceiveCount,
      });
    }

    const present = new Set(
      specs
        .filter(
          (spec) =>
            existsSync(resolve(dir, `${spec.name}.ts`)) &&
            (!spec.deliveryMode || spec.deliveryMode === config.deliveryMode),
        )
        .map((spec) => spec.name),
    );
    // Without a $connect authorizer API Gateway would accept any connection: all four or none.
    const webSocketReady = WEBSOCKET_FUNCTIONS.every((name) => present.has(name));
    if (webSocketReady) {
      this.webSocket = new KernelWebSocketApi(this, 'WebSocketApi', {
        stageName: 'live',
        throttle: THROTTLE,
        logRetention,
        logRemovalPolicy,
        ...this.accountRole(config),
      });
    } else {
      for (const name of WEBSOCKET_FUNCTIONS) present.delete(name);
      present.delete('fanout');
      Annotations.of(this).addInfo(
        `WebSocket API left out until functions/ has ${WEBSOCKET_FUNCTIONS.join(', ')}.`,
      );
    }

    for (const spec of specs) {
      if (!present.has(spec.name)) continue;
      const fn = new KernelFunction(this, functionId(spec.name), {
        entry: resolve(dir, `${spec.name}.ts`),
        description: spec.description,
        timeout: spec.timeout,
        memorySize: spec.memorySize,
        logRetention,
        logRemovalPolicy,
        ...(config.agentsEntry ? { agentsEntry: config.agentsEntry } : {}),
        ...(spec.copyDirs ? { copyDirs: spec.copyDirs } : {}),
        bundleAwsSdk: config.bundleAwsSdk,
        runtime: config.lambdaRuntime,
        tracing: config.tracing.backends,
        modelParameter: config.modelSecret !== undefined && 'parameterName' in config.modelSecret,
      });
      this.functions.set(spec.name, fn);
      this.grantAccess(spec, fn.function, config);
      wireTracing(this, fn.function, config.tracing);
      if (spec.trigger) {
        const queue = this.queues[spec.trigger.queue];
        if (!queue) throw new Error(`${spec.name}: queue ${spec.trigger.queue} is not deployed`);
        fn.function.addEventSource(
          new SqsEventSource(queue.queue, {
            batchSize: spec.trigger.batchSize,
            maxConcurrency: spec.trigger.maxConcurrency,
            reportBatchItemFailures: true,
          }),
        );
        Validations.of(fn.function).acknowledge({
          id: 'Serverless-LambdaEventSourceMappingDestination',
          reason:
            'SQS event sources take no on-failure destination (streams and Kafka do): a record that keeps failing goes to the queue dead-letter queue (its redrive policy), alarmed by DlqNotEmpty.',
        });
      }
    }

    const fnOf = (name: FunctionName) => this.functions.get(name)?.function;
    if (this.webSocket) {
      this.webSocket.wire({
        connect: fnOf('ws-connect')!,
        disconnect: fnOf('ws-disconnect')!,
        message: fnOf('ws-message')!,
        authorizer: fnOf('authorizer')!,
      });
    }
    const httpHandler = fnOf('http');
    if (httpHandler) {
      const authorizer = fnOf('authorizer');
      const auth: HttpAuth =
        config.auth.mode === 'jwks'
          ? { kind: 'jwt', issuer: config.auth.issuer, audience: config.auth.audience }
          : authorizer
            ? { kind: 'lambda', authorizer }
            : { kind: 'unavailable' };
      if (auth.kind === 'unavailable') {
        Annotations.of(this).addInfo('HTTP API serves only /health until functions/authorizer.ts.');
      }
      this.http = new KernelHttpApi(this, 'HttpApi', {
        handler: httpHandler,
        auth,
        corsOrigins: config.corsOrigins,
        throttle: THROTTLE,
        logRetention,
        logRemovalPolicy,
      });
    }

    const streamHandler = this.functions.get('stream')?.function;
    const apis = { httpUrl: this.http?.url, wsUrl: this.webSocket?.stage.url };
    if (streamHandler) this.streamUrl = streamUrlOf(streamHandler, config, apis);
    if (streamHandler && config.mcpAgentTools) {
      streamHandler.addEnvironment('MCP_AGENT_TOOLS', config.mcpAgentTools.join(','));
    }
    if (streamHandler && config.streamReservedConcurrency !== undefined) {
      // The Function URL's throttle: no API Gateway stage in front of it (docs/operations.md).
      const cfn = streamHandler.node.defaultChild as CfnFunction;
      cfn.reservedConcurrentExecutions = config.streamReservedConcurrency;
    }

    const alarms = config.alarmNotifications;
    if (alarms && 'topicArn' in alarms) {
      this.alarmTopic = Topic.fromTopicArn(this, 'AlarmTopic', alarms.topicArn);
    } else if (alarms) {
      this.alarmTopic = new KernelAlarmTopic(this, 'Alarms', { emails: alarms.emails }).topic;
    }
    const requests = this.queues.approvalRequests;
    if (requests && config.approvalNotifications) {
      this.approvalRequests = new ApprovalRequestsPipe(this, 'ApprovalRequests', {
        queue: requests.queue,
        destination: config.approvalNotifications,
        ...(this.http ? { httpUrl: this.http.url } : {}),
      });
    } else if (requests) {
      Annotations.of(this).addWarning(
        'Approval requests reach nobody: the approval-requests queue has no consumer. Deploy with -c approvalEmail=approver@example.com (or -c alarmEmail=…, which approval requests then go to too) or consume ApprovalRequestsQueueUrl yourself (docs/operations.md).',
      );
    }
    if (!this.alarmTopic) {
      Annotations.of(this).addWarning(
        'No alarm destination: the alarms notify nobody. Deploy with -c alarmEmail=you@example.com (or -c alarmTopicArn=arn:aws:sns:...).',
      );
    }
    const monitoring = new KernelMonitoring(this, 'Monitoring', {
      functions: new Map(
        specs
          .filter((spec) => this.functions.has(spec.name))
          .map((spec) => [
            spec.name,
            {
              fn: fnOf(spec.name)!,
              timeout: spec.timeout,
              consumesQueue: spec.trigger !== undefined,
            },
          ]),
      ),
      apis: {
        ...(this.http ? { http: this.http.stage } : {}),
        ...(this.webSocket
          ? {
              webSocket: {
                apiId: this.webSocket.api.apiId,
                stageName: this.webSocket.stage.stageName,
              },
            }
          : {}),
      },
      queues: Object.entries(this.queues).map(([name, q]) => ({
        name,
        queue: q.queue,
        deadLetterQueue: q.deadLetterQueue,
        // Left to your systems, a request may wait for a person; the pipe takes it at once.
        maxAge:
          name === 'approvalRequests' && !this.approvalRequests
            ? Duration.days(1)
            : Duration.minutes(15),
      })),
      errorRatePercent: 5,
      ...(this.alarmTopic ? { notify: this.alarmTopic } : {}),
    });
    stackOutputs(this, monitoring);
  }

  /** Environment and grants for one function, from its access list. */
  private grantAccess(spec: FunctionSpec, fn: NodejsFunction, config: KernelConfig): void {
    const env = (name: string, value: string) => fn.addEnvironment(name, value);
    const access = new Set<Access>(spec.access);
    if (access.has('deliver')) {
      access.add(config.deliveryMode === 'sqs-fanout' ? 'send-events' : 'post-to-session');
      if (config.eventBatchMaxDelayMs) {
        env('EVENT_BATCH_MAX_DELAY_MS', String(config.eventBatchMaxDelayMs));
      }
    }
    env('POWERTOOLS_SERVICE_NAME', `agent-kernel-${spec.name}`);
    env('LOG_LEVEL', 'INFO');
    env('DELIVERY_MODE', config.deliveryMode);
    if (spec.trigger?.queue === 'run') env('JOB_MAX_RECEIVES', String(config.maxReceiveCount));
    if (access.has('names-agents') && config.agentNames) {
      env('AGENT_NAMES', config.agentNames.join(','));
    }
    const table: TableAccess = { ...spec.table };
    if (access.has('post-to-session') && spec.access.includes('deliver')) {
      // Direct delivery: the worker posts to the subscribers itself, as fan-out would.
      for (const [family, actions] of Object.entries(POST_TO_SUBSCRIBERS) as Families) {
        table[family] = [...new Set([...(table[family] ?? []), ...actions])];
      }
    }
    if (access.has('meters') && config.quotas.enabled) fairUseEnv(config, env);
    // Fair use off: no function may touch the QUOTA# items.
    if (!config.quotas.enabled) delete table.quotas;
    if (Object.keys(table).length > 0) {
      env('TABLE_NAME', this.table.table.tableName);
      env('SESSION_TTL_SECONDS', String(config.sessionTtlSeconds));
      env('PAUSED_RUN_TTL_SECONDS', String(config.pausedRunTtlSeconds));
      env('EVENTS_TTL_SECONDS', String(config.eventsTtlSeconds));
      grantTable(fn, this.table.table.tableArn, table);
    }
    const send = (flag: Access, queue: QueueName, variable: string) => {
      const q = this.queues[queue];
      if (!access.has(flag) || !q) return;
      env(variable, q.queue.queueUrl);
      q.queue.grantSendMessages(fn);
    };
    send('send-run', 'run', 'RUN_QUEUE_URL');
    send('send-events', 'events', 'EVENTS_QUEUE_URL');
    send('send-approval-requests', 'approvalRequests', 'APPROVAL_REQUESTS_QUEUE_URL');
    if (access.has('post-to-session') && this.webSocket) {
      env('WEBSOCKET_ENDPOINT', this.webSocket.stage.callbackUrl);
      this.webSocket.grantPostToConnections(fn);
    }
    if (access.has('runs-agents')) grantModelAccess(this, fn, config, env);
    if (config.tracing.secretName || access.has('runs-agents') || access.has('verify-tokens')) {
      grantSecretKeys(fn, config);
    }
    if (access.has('verify-tokens')) {
      env('AUTH_MODE', config.auth.mode);
      if (config.auth.mode === 'hs256') {
        // Only the name: the authorizer reads the value at cold start (lib/aws/handlers/authorizer.ts),
        // so it is never in the function's configuration, the template or the cloud assembly.
        env('JWT_SECRET_NAME', config.auth.secretName);
        jwtSecret(this, config, config.auth.secretName).grantRead(fn);
        if (config.auth.issuer) env('JWT_ISSUER', config.auth.issuer);
        if (config.auth.audience) env('JWT_AUDIENCE', config.auth.audience);
      } else {
        env('JWKS_URL', config.auth.jwksUrl);
        env('JWT_ISSUER', config.auth.issuer);
        env('JWT_AUDIENCE', config.auth.audience);
      }
    }
  }

  private accountRole(config: KernelConfig): { accessLogs: boolean; dependsOn?: Construct } {
    if (config.apiGatewayAccountRole === 'none') {
      Annotations.of(this).addWarning(
        'WebSocket access logging is off (apiGatewayAccountRole=none). To turn it on, deploy with -c apiGatewayAccountRole=create (the stack sets the account-level API Gateway CloudWatch Logs role) or set one yourself and use -c apiGatewayAccountRole=existing (docs/operations.md).',
      );
      return { accessLogs: false };
    }
    if (config.apiGatewayAccountRole === 'existing') return { accessLogs: true };
    return { accessLogs: true, dependsOn: new ApiGatewayAccountRole(this, 'ApiGatewayAccount') };
  }
}
