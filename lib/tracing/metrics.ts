/**
 * CloudWatch embedded metric format (EMF): one JSON line per request (a trace's local root span)
 * that CloudWatch Logs turns into metrics. Dimensions are only `agent` and `framework`: session
 * and run ids would create a metric per conversation.
 */
export const METRICS = {
  RunDuration: { unit: 'Milliseconds', sum: false },
  TimeToFirstEvent: { unit: 'Milliseconds', sum: false },
  RunErrors: { unit: 'Count', sum: true },
  RunsPaused: { unit: 'Count', sum: true },
  RunsResumed: { unit: 'Count', sum: true },
  ToolCalls: { unit: 'Count', sum: true },
  ToolErrors: { unit: 'Count', sum: true },
  ToolDuration: { unit: 'Milliseconds', sum: false },
  EventsDelivered: { unit: 'Count', sum: true },
  DeliveryFailures: { unit: 'Count', sum: true },
  InputTokens: { unit: 'Count', sum: true },
  OutputTokens: { unit: 'Count', sum: true },
} as const;

export type MetricName = keyof typeof METRICS;

export const METRIC_DIMENSIONS = ['agent', 'framework'] as const;
export type MetricDimensions = Partial<Record<(typeof METRIC_DIMENSIONS)[number], string>>;

/** CloudWatch keeps at most 100 values per metric in one EMF document. */
const MAX_VALUES = 100;

/** Counts are summed; durations keep every value (CloudWatch computes the percentiles). */
export class MetricsBuffer {
  readonly #values = new Map<MetricName, number[]>();

  add(name: MetricName, value: number): void {
    if (!Number.isFinite(value)) return;
    const values = this.#values.get(name);
    if (!values) this.#values.set(name, [value]);
    else if (METRICS[name].sum) values[0] = (values[0] ?? 0) + value;
    else if (values.length < MAX_VALUES) values.push(value);
  }

  get size(): number {
    return this.#values.size;
  }

  /** The EMF document for everything added, or undefined when nothing was. */
  document(
    namespace: string,
    dimensions: MetricDimensions,
    timestamp: number,
    properties: Record<string, unknown> = {},
  ): Record<string, unknown> | undefined {
    if (this.#values.size === 0) return undefined;
    const dims: Record<string, string> = {};
    for (const key of METRIC_DIMENSIONS) {
      const value = dimensions[key];
      if (value) dims[key] = value;
    }
    const metrics: { Name: string; Unit: string }[] = [];
    const values: Record<string, number | number[]> = {};
    for (const [name, list] of this.#values) {
      metrics.push({ Name: name, Unit: METRICS[name].unit });
      values[name] = list.length === 1 ? (list[0] as number) : list;
    }
    return {
      // Properties first: a metric or dimension of the same name must win.
      ...properties,
      _aws: {
        Timestamp: timestamp,
        CloudWatchMetrics: [
          { Namespace: namespace, Dimensions: [Object.keys(dims)], Metrics: metrics },
        ],
      },
      ...dims,
      ...values,
    };
  }
}
