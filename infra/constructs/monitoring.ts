import { Duration } from 'aws-cdk-lib';
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

export interface KernelMonitoringProps {
  readonly functions: ReadonlyMap<string, IFunction>;
  readonly queues: readonly MonitoredQueue[];
  /** Percent of invocations that fail, over five minutes. */
  readonly errorRatePercent: number;
  /** Notified when an alarm goes off and again when it is OK. */
  readonly notify?: ITopic;
  /** Namespace of the functions' EMF metrics (AGENT_KERNEL_METRICS_NAMESPACE); default AgentKernel. */
  readonly metricsNamespace?: string;
}

/**
 * The worker's and the delivery's own counters (lib/aws/after-turn.ts), with the count in five
 * minutes that raises an alarm (docs/operations.md says what each means and what to do).
 */
const PIPELINE_ALARMS = [
  ['PostTurnStepFailures', 1, 'A step after a stored turn (record, delivery, claim) gave up'],
  ['RunTimeouts', 5, 'Runs reached the worker deadline and were retried'],
  ['ConnectionsDropped', 10, 'WebSocket connections kept failing and were dropped'],
] as const;

const PERIOD = Duration.minutes(5);

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
    for (const [name, fn] of props.functions) this.watchFunction(name, fn, props.errorRatePercent);
    for (const queue of props.queues) this.watchQueue(queue);
    this.watchPipeline(props.metricsNamespace ?? 'AgentKernel');
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
