import {
  activeSpan,
  type Span,
  type SpanAttributes,
  type SpanOptions,
  type Tracer,
} from '../core/tracer.js';
import type { TracingConfig } from './config.js';
import { JsonLogger, type LineSink, type LogContext, type LogPort, stdoutSink } from './logger.js';
import { MetricsBuffer } from './metrics.js';
import type { PrincipalPolicy } from './otel-attributes.js';
import { Redactor, secretsFromEnv } from './redact.js';
import { activeLogContext, CloudWatchSpan, type SpanHost } from './span.js';
import {
  nestSubsegments,
  parseTraceHeader,
  type SegmentEmitter,
  type TraceHeader,
  UdpSegmentEmitter,
} from './xray.js';
import { discoverXraySdk } from './xray-sdk.js';

/** A local root that never ends must not hold documents forever: past this they go alone. */
const MAX_PENDING = 500;

export interface CloudWatchTracerOptions {
  /** Defaults to `tracingConfigFromEnv(env)`; fields given here win. */
  readonly config?: Partial<TracingConfig>;
  readonly env?: Record<string, string | undefined>;
  /** Where segment documents go; UDP to `config.daemon` by default. */
  readonly emitter?: SegmentEmitter;
  /** Where EMF and log lines go; stdout (CloudWatch Logs on Lambda) by default. */
  readonly sink?: LineSink;
  /** Defaults to the built-in rules plus the secret values of the environment. */
  readonly redactor?: Redactor;
  /**
   * Where run and failure lines go; a JSON logger on `sink` by default. A given logger redacts
   * its own lines (lib/aws gives the function's Powertools logger with the same redactor).
   */
  readonly logger?: LogPort;
  readonly random?: () => number;
}

/**
 * The CloudWatch backend: each span becomes an X-Ray (sub)segment sent to the daemon when it
 * ends, each run (or request) one EMF line, and runs, failures and slow parts JSON log lines.
 */
export class CloudWatchBackend implements Tracer, SpanHost {
  readonly config: TracingConfig;
  readonly redactor: Redactor;
  readonly logger: LogPort;
  readonly capturePayloads: boolean;
  readonly serviceName: string;
  readonly principal: PrincipalPolicy;
  readonly #emitter: SegmentEmitter | undefined;
  readonly #sink: LineSink;
  readonly #env: Record<string, string | undefined>;
  readonly #random: () => number;
  #lambdaHeader: { raw: string; parsed: TraceHeader | undefined } | undefined;

  /** `config` checked already (config.ts or config-light.ts): this file imports no zod. */
  constructor(options: CloudWatchTracerOptions, config: TracingConfig) {
    this.#env = options.env ?? process.env;
    this.config = config;
    this.capturePayloads = this.config.capturePayloads;
    this.serviceName = this.config.serviceName;
    this.principal = this.config.principal;
    this.redactor = options.redactor ?? new Redactor({ secrets: secretsFromEnv(this.#env) });
    this.#emitter = this.config.xray
      ? (options.emitter ?? new UdpSegmentEmitter(this.config.daemon))
      : undefined;
    this.#sink = options.sink ?? stdoutSink;
    this.#random = options.random ?? Math.random;
    this.logger =
      options.logger ??
      new JsonLogger({
        sink: this.#sink,
        level: this.config.logLevel,
        redactor: this.redactor,
        context: () => this.logContext(),
      });
  }

  startSpan(name: string, attributes: SpanAttributes = {}, options: SpanOptions = {}): Span {
    discoverXraySdk();
    // A span opened without a parent hangs under the active one (a handler's span, a run).
    const remote = options.traceHeader !== undefined || options.traceContext !== undefined;
    const parent = options.parent ?? (remote ? undefined : activeSpan());
    return new CloudWatchSpan(this, name, attributes, parent ? { ...options, parent } : options);
  }

  /** The ids of the active span (or of the Lambda invocation's trace) for a log line. */
  logContext(): LogContext | undefined {
    const ids = activeLogContext();
    if (ids) return ids;
    const trace = this.lambdaTrace();
    return trace ? { traceId: trace.traceId } : undefined;
  }

  sampled(): boolean {
    return this.#random() < this.config.sampleRate;
  }

  /** Lambda sets `_X_AMZN_TRACE_ID` per invocation; parsed once per value. */
  lambdaTrace(): TraceHeader | undefined {
    const raw = this.#env._X_AMZN_TRACE_ID;
    if (!raw) return undefined;
    if (this.#lambdaHeader?.raw !== raw) {
      let parsed: TraceHeader | undefined;
      try {
        parsed = parseTraceHeader(raw);
      } catch {
        parsed = undefined;
      }
      this.#lambdaHeader = { raw, parsed };
    }
    return this.#lambdaHeader.parsed;
  }

  finished(span: CloudWatchSpan): void {
    try {
      this.#metrics(span);
      const emf = span.owner === span ? this.#emf(span, span.metrics) : undefined;
      // A run's metrics ride in its `run finished` / `run failed` line (EMF reads any JSON line
      // with `_aws`): one line and one JSON per turn instead of two.
      const carried = this.#log(span, emf);
      if (emf && !carried) this.#sink(JSON.stringify(emf));
      if (this.#emitter && span.sampled) this.#send(span, this.#emitter);
    } catch {
      // Tracing never fails a run.
    }
  }

  /** Descendants wait for their local root: one UDP packet per request, not one per span. */
  #send(span: CloudWatchSpan, emitter: SegmentEmitter): void {
    const root = span.localRoot;
    if (root !== span && !root.ended && root.pending.length < MAX_PENDING) {
      root.pending.push(span.document());
      return;
    }
    if (root !== span) {
      // Ended after its root (fire-and-forget work) or past the cap: sent on its own.
      emitter.send(span.document());
      return;
    }
    const { document, orphans } = nestSubsegments(span.document(), span.pending);
    span.pending.length = 0;
    emitter.send(document);
    for (const orphan of orphans) emitter.send(orphan);
  }

  async close(): Promise<void> {
    await this.#emitter?.close?.();
  }

  #metrics(span: CloudWatchSpan): void {
    const a = span.attributes;
    const ms = span.durationMs;
    // A child that outlives its run's span writes a line of its own.
    const late = span.owner !== span && span.owner.ended;
    const buffer = late ? new MetricsBuffer() : span.metrics;
    switch (span.kind) {
      case 'run':
        buffer.add('RunDuration', ms);
        buffer.add('RunErrors', span.failed ? 1 : 0);
        buffer.add('RunsPaused', a.outcome === 'paused' ? 1 : 0);
        buffer.add('RunsResumed', a.resumed ? 1 : 0);
        if (typeof a.timeToFirstEventMs === 'number') {
          buffer.add('TimeToFirstEvent', a.timeToFirstEventMs);
        }
        break;
      case 'tool':
        buffer.add('ToolCalls', 1);
        buffer.add('ToolErrors', span.failed ? 1 : 0);
        buffer.add('ToolDuration', ms);
        break;
      case 'model':
        if (typeof a.inputTokens === 'number') buffer.add('InputTokens', a.inputTokens);
        if (typeof a.outputTokens === 'number') buffer.add('OutputTokens', a.outputTokens);
        break;
      case 'delivery':
        buffer.add(
          'EventsDelivered',
          span.failed ? 0 : typeof a.events === 'number' ? a.events : 0,
        );
        buffer.add('DeliveryFailures', span.failed ? 1 : 0);
        break;
      default:
        break;
    }
    if (late) {
      const emf = this.#emf(span, buffer);
      if (emf) this.#sink(JSON.stringify(emf));
    }
  }

  #emf(span: CloudWatchSpan, buffer: MetricsBuffer): Record<string, unknown> | undefined {
    const owner = span.owner;
    const { agent, framework, requestId, sessionId, runId } = owner.ids;
    // Ids ride along as properties (searchable in Logs Insights), never as dimensions.
    const properties: Record<string, unknown> = {};
    for (const [key, value] of Object.entries({
      traceId: owner.traceId,
      requestId,
      sessionId,
      runId,
    })) {
      if (value !== undefined) properties[key] = this.redactor.string(value);
    }
    return buffer.document(
      this.config.namespace,
      {
        agent: agent && this.redactor.string(agent),
        framework: framework && this.redactor.string(framework),
      },
      Date.now(),
      properties,
    );
  }

  /** Writes the span's line, if it has one; true when that line carries `emf` (a run's). */
  #log(span: CloudWatchSpan, emf: Record<string, unknown> | undefined): boolean {
    // Most spans write no line (only runs, failures, or everything at `debug`): build nothing.
    if (span.kind !== 'run' && !span.failed && !this.logger.enabled('debug')) return false;
    const context = { ...span.ids, traceId: span.traceId };
    const fields: Record<string, unknown> = {
      span: span.name,
      kind: span.kind,
      durationMs: Math.round(span.durationMs * 1000) / 1000,
      ...(span.attributes.outcome === undefined ? {} : { outcome: span.attributes.outcome }),
      ...(span.kind === 'tool' ? { tool: span.attributes.tool } : {}),
      ...(span.error ? { error: span.error } : {}),
    };
    if (span.kind === 'run') {
      const level = span.failed ? 'error' : 'info';
      // A logger set above the line's level drops it, one of the caller's may not write `carried`:
      // the metrics then go on a line of their own.
      const carry = emf !== undefined && this.logger.carries === true && this.logger.enabled(level);
      const message = span.failed ? 'run failed' : 'run finished';
      // Redacted already (its ids): not walked again.
      this.logger.log(level, message, fields, context, carry ? emf : undefined);
      return carry;
    }
    if (span.failed) this.logger.log('warn', `${span.kind} failed`, fields, context);
    else if (this.logger.enabled('debug')) {
      this.logger.log('debug', `${span.kind} finished`, fields, context);
    }
    return false;
  }
}
