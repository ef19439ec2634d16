import { Duration } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  type Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface MonitoredQueue {
  readonly name: string;
  readonly queue: IQueue;
  readonly deadLetterQueue: IQueue;
  /** Oldest message older than this: consumers are stuck or too few. */
  readonly maxAge: Duration;
}

export interface MonitoredFunction {
  readonly fn: IFunction;
  readonly timeout: Duration;
  /** An SQS consumer: its failed records (FailedRecords, lib/aws/middleware/sqs-batch.ts) are alarmed. */
  readonly consumesQueue: boolean;
}

/** The API Gateway stages: 5XX and latency alarms for each. */
export interface MonitoredApis {
  readonly http?: HttpStage;
  readonly webSocket?: { readonly apiId: string; readonly stageName: string };
}

export interface KernelMonitoringProps {
  readonly functions: ReadonlyMap<string, MonitoredFunction>;
  readonly apis?: MonitoredApis;
  readonly queues: readonly MonitoredQueue[];
  /** Percent of invocations that fail, over five minutes. */
  readonly errorRatePercent: number;
  /** Notified when an alarm goes off and again when it is OK. */
  readonly notify?: ITopic;
  /** Namespace of the functions' EMF metrics (AGENT_KERNEL_METRICS_NAMESPACE); default AgentKernel. */
  readonly metricsNamespace?: string;
}

/**
 * The worker's and the delivery's own counters (lib/aws/adapters/job-metrics.ts), with the count in five
 * minutes that raises an alarm (docs/operations.md says what each means and what to do).
 */
const PIPELINE_ALARMS = [
  ['PostTurnStepFailures', 1, 'A step after a stored turn (record, delivery, claim) gave up'],
  ['RunTimeouts', 5, 'Runs reached the worker deadline and were retried'],
  ['ConnectionsDropped', 10, 'WebSocket connections kept failing and were dropped'],
] as const;

const PERIOD = Duration.minutes(5);
/** p99 duration above this share of the timeout: the next slow dependency times it out. */
export const NEAR_TIMEOUT = 0.8;
/** Failed SQS records in five minutes (retried jobs included) before the alarm goes off. */
const FAILED_RECORDS = 5;
/** Rejected tokens in five minutes: someone trying tokens, or a client's signing broke. */
const REJECTIONS = 100;
/** API Gateway 5XX answers in five minutes. */
const SERVER_ERRORS = 5;
/** HTTP p99 latency: synchronous runs stop at 25 s (SYNC_RUN_TIMEOUT_MS), API Gateway at 30. */
const HTTP_LATENCY_MS = 25_000;
/** WebSocket integration p99: ws-message only queues and answers; its timeout is 10 s. */
const WEBSOCKET_LATENCY_MS = 5_000;

/**
 * Alarms (DLQ not empty, error rate, throttles, oldest message age), each notifying `notify` when
 * it goes off and when it recovers, and one dashboard.
 */
export class KernelMonitoring extends Construct {
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: KernelMonitoringProps) {
    super(scope, id);
    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(
      new TextWidget({ markdown: '# Agent kernel: functions and queues', width: 24, height: 1 }),
    );
    const namespace = props.metricsNamespace ?? 'AgentKernel';
    for (const [name, watched] of props.functions) {
      this.watchFunction(name, watched.fn, props.errorRatePercent);
      this.watchDuration(name, watched);
      if (watched.consumesQueue) this.watchFailedRecords(name, watched.fn, namespace);
    }
    for (const queue of props.queues) this.watchQueue(queue);
    this.watchPipeline(namespace);
    if (props.functions.has('authorizer')) this.watchRejections(namespace);
    if (props.functions.has('approvals')) this.watchRefusedApprovals(namespace);
    if (props.apis?.http) this.watchHttp(props.apis.http);
    if (props.apis?.webSocket) this.watchWebSocket(props.apis.webSocket);
    if (props.notify) {
      const action = new SnsAction(props.notify);
      for (const alarm of this.alarms) {
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
    }
  }

  private watchFunction(name: string, fn: IFunction, errorRatePercent: number): void {
    const errors = fn.metricErrors({ period: PERIOD, statistic: 'Sum' });
    const invocations = fn.metricInvocations({ period: PERIOD, statistic: 'Sum' });
    const throttles = fn.metricThrottles({ period: PERIOD, statistic: 'Sum' });
    const errorRate = new MathExpression({
      expression: '100 * errors / MAX([invocations, 1])',
      usingMetrics: { errors, invocations },
      label: `${name} error rate (%)`,
      period: PERIOD,
    });
    this.alarms.push(
      errorRate.createAlarm(this, `${name}ErrorRate`, {
        alarmDescription: `More than ${errorRatePercent}% of ${name} invocations failed`,
        threshold: errorRatePercent,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      throttles.createAlarm(this, `${name}Throttles`, {
        alarmDescription: `${name} was throttled`,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: `${name}: invocations, errors, throttles`,
        left: [invocations, errors, throttles],
        right: [fn.metricDuration({ period: PERIOD, statistic: 'p99' })],
        width: 12,
      }),
    );
  }

  private alarm(
    metric: Metric | MathExpression,
    id: string,
    description: string,
    threshold: number,
    comparison = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods = 1,
  ): void {
    this.alarms.push(
      metric.createAlarm(this, id, {
        alarmDescription: description,
        threshold,
        evaluationPeriods,
        comparisonOperator: comparison,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /** p99 above NEAR_TIMEOUT of the timeout, two periods running (one slow call is no trend). */
  private watchDuration(name: string, { fn, timeout }: MonitoredFunction): void {
    const limit = Math.round(timeout.toMilliseconds() * NEAR_TIMEOUT);
    this.alarm(
      fn.metricDuration({ period: PERIOD, statistic: 'p99' }),
      `${name}NearTimeout`,
      `${name} p99 duration above ${NEAR_TIMEOUT * 100}% of its ${timeout.toSeconds()} s timeout`,
      limit,
      ComparisonOperator.GREATER_THAN_THRESHOLD,
      2,
    );
  }

  /** Reported batch items are no Lambda error: lib/aws/middleware/sqs-batch.ts counts them (FailedRecords). */
  private watchFailedRecords(name: string, fn: IFunction, namespace: string): void {
    const failed = new Metric({
      namespace,
      metricName: 'FailedRecords',
      dimensionsMap: { FunctionName: fn.functionName },
      period: PERIOD,
      statistic: 'Sum',
    });
    this.alarm(
      failed,
      `${name}FailedRecords`,
      `${name} reported ${FAILED_RECORDS}+ failed SQS records (retried or dead-lettered)`,
      FAILED_RECORDS,
    );
  }

  private watchRejections(namespace: string): void {
    const rejections = new Metric({
      namespace,
      metricName: 'AuthorizerRejections',
      period: PERIOD,
      statistic: 'Sum',
    });
    this.alarm(
      rejections,
      'AuthorizerRejections',
      `The authorizer refused ${REJECTIONS}+ tokens in 5 minutes`,
      REJECTIONS,
    );
    this.dashboard.addWidgets(
      new GraphWidget({ title: 'Authorizer: refused tokens', left: [rejections], width: 12 }),
    );
  }

  /**
   * A decision the approvals function dropped (lib/aws/handlers/approvals.ts, `ApprovalsRefused`): not the
   * owner or an approver, a run no longer paused, a malformed message. Someone believes they
   * decided; the run still waits. One is worth a look.
   */
  private watchRefusedApprovals(namespace: string): void {
    const refused = new Metric({
      namespace,
      metricName: 'ApprovalsRefused',
      period: PERIOD,
      statistic: 'Sum',
    });
    this.alarm(
      refused,
      'ApprovalsRefused',
      'The approvals function refused a decision from the approvals queue (it was dropped)',
      1,
    );
    this.dashboard.addWidgets(
      new GraphWidget({ title: 'Approvals: refused decisions', left: [refused], width: 12 }),
    );
  }

  private watchHttp(stage: HttpStage): void {
    const errors = stage.metricServerError({ period: PERIOD, statistic: 'Sum' });
    const latency = stage.metricLatency({ period: PERIOD, statistic: 'p99' });
    this.alarm(errors, 'Http5xx', `The HTTP API answered ${SERVER_ERRORS}+ 5XX`, SERVER_ERRORS);
    this.alarm(
      latency,
      'HttpLatency',
      `HTTP API p99 latency above ${HTTP_LATENCY_MS} ms (synchronous runs near their limit)`,
      HTTP_LATENCY_MS,
      ComparisonOperator.GREATER_THAN_THRESHOLD,
      2,
    );
    this.dashboard.addWidgets(
      new GraphWidget({ title: 'HTTP API: 5XX, p99 latency', left: [errors], right: [latency] }),
    );
  }

  /** WebSocket APIs have no 5XX metric: ExecutionError and IntegrationError are their 5XX. */
  private watchWebSocket(stage: { apiId: string; stageName: string }): void {
    const metric = (metricName: string, statistic: string) =>
      new Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiId: stage.apiId, Stage: stage.stageName },
        period: PERIOD,
        statistic,
      });
    const errors = new MathExpression({
      expression: 'execution + integration',
      usingMetrics: {
        execution: metric('ExecutionError', 'Sum'),
        integration: metric('IntegrationError', 'Sum'),
      },
      label: 'WebSocket execution and integration errors',
      period: PERIOD,
    });
    const latency = metric('IntegrationLatency', 'p99');
    this.alarm(
      errors,
      'WebSocket5xx',
      `The WebSocket API had ${SERVER_ERRORS}+ execution or integration errors`,
      SERVER_ERRORS,
    );
    this.alarm(
      latency,
      'WebSocketLatency',
      `WebSocket integration p99 latency above ${WEBSOCKET_LATENCY_MS} ms`,
      WEBSOCKET_LATENCY_MS,
      ComparisonOperator.GREATER_THAN_THRESHOLD,
      2,
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'WebSocket API: errors, p99 latency',
        left: [errors],
        right: [latency],
      }),
    );
  }

  private watchPipeline(namespace: string): void {
    const metric = (metricName: string) =>
      new Metric({ namespace, metricName, period: PERIOD, statistic: 'Sum' });
    for (const [name, threshold, description] of PIPELINE_ALARMS) {
      this.alarms.push(
        metric(name).createAlarm(this, name, {
          alarmDescription: description,
          threshold,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Worker: retried jobs, timeouts, post-turn failures, dropped connections',
        left: ['JobRetries', ...PIPELINE_ALARMS.map(([name]) => name)].map(metric),
        width: 12,
      }),
    );
  }

  private watchQueue(q: MonitoredQueue): void {
    const dlqDepth = q.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    });
    const age = q.queue.metricApproximateAgeOfOldestMessage({
      period: PERIOD,
      statistic: 'Maximum',
    });
    this.alarms.push(
      dlqDepth.createAlarm(this, `${q.name}DlqNotEmpty`, {
        alarmDescription: `Messages of the ${q.name} queue reached its dead-letter queue`,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      age.createAlarm(this, `${q.name}OldestMessage`, {
        alarmDescription: `The oldest message of the ${q.name} queue waits too long`,
        threshold: q.maxAge.toSeconds(),
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: `${q.name} queue: depth, oldest message (s), dead letters`,
        left: [q.queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD }), dlqDepth],
        right: [age],
        width: 12,
      }),
    );
  }
}
