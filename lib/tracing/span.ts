import {
  activeSpan,
  type PayloadOptions,
  type Span,
  type SpanAttributes,
  type SpanKind,
  type SpanOptions,
} from '../core/tracer.js';
import { type MetricName, MetricsBuffer } from './metrics.js';
import { type PrincipalPolicy, principalValue } from './otel-attributes.js';
import type { Redactor } from './redact.js';
import {
  formatTraceHeader,
  newSegmentId,
  newTraceId,
  parseTraceHeader,
  type SegmentDocument,
  type TraceHeader,
} from './xray.js';

/** Attributes that become X-Ray annotations (searchable); the rest goes to metadata. */
const ANNOTATED = new Set([
  'requestId',
  'sessionId',
  'runId',
  'agent',
  'framework',
  'tool',
  'model',
  'hook',
  'callId',
  'outcome',
]);
/** Ids a child inherits from its parent, for annotations and log lines. */
const INHERITED = ['requestId', 'sessionId', 'runId', 'agent', 'framework'] as const;
export type SpanIds = Partial<Record<(typeof INHERITED)[number], string>>;
const IS_INHERITED: ReadonlySet<string> = new Set(INHERITED);

/** What spans of one tracer share. */
export interface SpanHost {
  readonly redactor: Redactor;
  readonly capturePayloads: boolean;
  readonly serviceName: string;
  /** How a `principal` attribute reaches X-Ray: as it reaches OTel (hashed by default). */
  readonly principal?: PrincipalPolicy;
  sampled(): boolean;
  /** The trace Lambda started for this invocation, if any. */
  lambdaTrace(): TraceHeader | undefined;
  finished(span: CloudWatchSpan): void;
}

const KNOWN_KINDS = new Set<string>(['run', 'model', 'tool', 'hook', 'delivery', 'aws']);

export class CloudWatchSpan implements Span {
  readonly id = newSegmentId();
  readonly name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly sampled: boolean;
  /** The remote (or Lambda facade) parent when this span is the first of its process. */
  readonly parentId: string | undefined;
  readonly parent: CloudWatchSpan | undefined;
  /**
   * The span whose EMF line carries this span's metrics: the nearest `run` span, else the first
   * span of the trace in this process.
   */
  readonly owner: CloudWatchSpan;
  /** The first span of this trace in this process: it sends the documents of all below it. */
  readonly localRoot: CloudWatchSpan;
  /** Documents of finished descendants, sent nested in this (local root) span's document. */
  readonly pending: SegmentDocument[] = [];
  readonly metrics: MetricsBuffer;
  readonly ids: SpanIds;
  readonly startedAt = performance.now();
  readonly startTime = (performance.timeOrigin + this.startedAt) / 1000;
  readonly attributes: SpanAttributes = {};
  durationMs = 0;
  error: { type: string; message: string; code?: string } | undefined;
  ended = false;
  #payload: Record<string, unknown> | undefined;
  readonly #host: SpanHost;
  /** A segment though it continues a remote parent (`parent_id` links it to the sender). */
  readonly ownSegment: boolean = false;

  constructor(host: SpanHost, name: string, attributes: SpanAttributes, options: SpanOptions) {
    this.#host = host;
    this.name = name;
    this.kind = options.kind ?? (KNOWN_KINDS.has(name) ? (name as SpanKind) : 'internal');
    const parent = options.parent instanceof CloudWatchSpan ? options.parent : undefined;
    this.parent = parent;
    if (parent) {
      this.traceId = parent.traceId;
      this.sampled = parent.sampled;
      this.parentId = undefined;
      this.ids = { ...parent.ids };
    } else {
      const remote = options.traceHeader ? readHeader(options.traceHeader) : host.lambdaTrace();
      this.traceId = remote?.traceId ?? newTraceId();
      this.sampled = remote ? remote.sampled : host.sampled();
      this.parentId = remote?.parentId;
      this.ids = {};
      // A queue message's consumer off Lambda (the local stack's worker) has no facade segment
      // to hang under: it is a segment of its own, linked to the sender, so a node of its own.
      this.ownSegment =
        options.role === 'consumer' && remote !== undefined && host.lambdaTrace() === undefined;
    }
    const ownsMetrics = !parent || this.kind === 'run';
    this.owner = ownsMetrics || !parent ? this : parent.owner;
    this.localRoot = parent ? parent.localRoot : this;
    this.metrics = ownsMetrics ? new MetricsBuffer() : this.owner.metrics;
    this.setAttributes(attributes);
  }

  // Several calls per span on every turn: `for…in` allocates no entry pairs.
  setAttributes(attributes: SpanAttributes): void {
    for (const key in attributes) {
      const value = attributes[key];
      if (value === undefined) continue;
      this.attributes[key] = value;
      if (typeof value === 'string' && IS_INHERITED.has(key))
        this.ids[key as keyof SpanIds] = value;
    }
  }

  setPayload(name: 'input' | 'output', value: unknown, options?: PayloadOptions): void {
    const sensitive = options?.sensitive ?? [];
    if (!this.#host.capturePayloads && sensitive.length === 0) return;
    const resolved = typeof value === 'function' ? value() : value;
    if (!this.#host.capturePayloads) {
      // Not recorded, but learnt: an echo in a model's answer must still be hidden.
      this.#host.redactor.learnPaths(resolved, sensitive);
      return;
    }
    this.#payload ??= {};
    this.#payload[name] = this.#host.redactor.redact(resolved, sensitive);
  }

  recordError(error: unknown): void {
    if (this.attributes.outcome === undefined) this.attributes.outcome = 'error';
    const err = error as { name?: unknown; message?: unknown; code?: unknown } | undefined;
    this.error = {
      type: typeof err?.name === 'string' ? err.name : typeof error,
      message: this.#host.redactor.string(
        typeof err?.message === 'string' ? err.message : String(error),
      ),
      ...(typeof err?.code === 'string' ? { code: err.code } : {}),
    };
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.durationMs = performance.now() - this.startedAt;
    this.#host.finished(this);
  }

  traceHeader(): string | undefined {
    return formatTraceHeader({ traceId: this.traceId, parentId: this.id, sampled: this.sampled });
  }

  /** Paused tool calls and paused runs are not failures. */
  get failed(): boolean {
    return this.error !== undefined && this.attributes.outcome !== 'paused';
  }

  addMetric(name: MetricName, value: unknown): void {
    if (typeof value === 'number') this.metrics.add(name, value);
  }

  /** A segment (the first span of a new trace) or an independently sent subsegment. */
  document(): SegmentDocument {
    const redactor = this.#host.redactor;
    const annotations: Record<string, string | number | boolean> = { kind: this.kind };
    const metadata: Record<string, unknown> = {};
    const { ids, attributes } = this;
    // The ids, then the attributes (which win): no merged copy and no entry pairs.
    for (const key in ids) {
      const value = ids[key as keyof SpanIds];
      if (value !== undefined && !(key in attributes)) annotations[key] = redactor.string(value);
    }
    for (const key in attributes) {
      const raw = attributes[key];
      const value =
        key === 'principal' && raw !== undefined
          ? principalValue(String(raw), this.#host.principal ?? 'hash')
          : raw;
      if (value === undefined) continue;
      const safe = typeof value === 'string' ? redactor.string(value) : value;
      if (ANNOTATED.has(key)) annotations[key] = safe;
      else metadata[key] = safe;
    }
    if (this.#payload) Object.assign(metadata, this.#payload);
    const isSegment = !this.parent && (!this.parentId || this.ownSegment);
    // A model call's remote node is named after its host (X-Ray's service map), with its URL.
    const host = this.kind === 'model' ? this.attributes.serverAddress : undefined;
    const doc: SegmentDocument = {
      name: isSegment
        ? this.#host.serviceName
        : xrayName(typeof host === 'string' ? host : this.name),
      id: this.id,
      trace_id: this.traceId,
      start_time: this.startTime,
      end_time: this.startTime + this.durationMs / 1000,
      ...(isSegment
        ? this.parentId
          ? { parent_id: this.parentId }
          : {}
        : { type: 'subsegment', parent_id: this.parent?.id ?? this.parentId }),
      ...namespaceOf(this.kind),
      annotations,
    };
    if (Object.keys(metadata).length > 0) doc.metadata = { agent_kernel: metadata };
    if (isSegment) annotations.span = xrayName(this.name);
    if (this.kind === 'aws') doc.aws = awsBlock(this.attributes);
    if (typeof host === 'string') {
      const url = this.attributes.serverUrl;
      doc.http = {
        request: {
          method: 'POST',
          url: redactor.string(typeof url === 'string' ? url : `https://${host}`),
        },
      };
    }
    if (this.error) {
      const { code, ...exception } = this.error;
      Object.assign(doc, errorFlags(this.error));
      // The segment schema's exception has no `code`: ours goes to metadata.
      if (code) doc.metadata = { agent_kernel: { ...metadata, error_code: code } };
      doc.cause = { exceptions: [{ id: newSegmentId(), ...exception }] };
    }
    return doc;
  }
}

const THROTTLED = /throttl|rate.?limit|too.?many.?requests|quota/i;
const CLIENT =
  /invalid|not.?found|forbidden|unauthori[sz]ed|denied|validation|conflict|-input|bad.?request/i;

/**
 * X-Ray's flags by class: `throttle` (and `error`) for a throttled or rate-limited call, `error`
 * for a caller's fault (4xx class), else `fault` (ours or a dependency's, 5xx class).
 */
function errorFlags(error: { type: string; code?: string }): Partial<SegmentDocument> {
  const what = `${error.type} ${error.code ?? ''}`;
  if (THROTTLED.test(what)) return { error: true, throttle: true };
  if (CLIENT.test(what)) return { error: true };
  return { fault: true };
}

/** The ids of the active span (requestId, sessionId, runId, agent, traceId) for a log line. */
export function activeLogContext(): (SpanIds & { traceId: string }) | undefined {
  const span = activeSpan();
  return span instanceof CloudWatchSpan ? { ...span.ids, traceId: span.traceId } : undefined;
}

/** A header we cannot read starts a new trace: tracing never fails the caller. */
function readHeader(header: string): TraceHeader | undefined {
  try {
    return parseTraceHeader(header);
  } catch {
    return undefined;
  }
}

function namespaceOf(kind: SpanKind): Pick<SegmentDocument, 'namespace'> {
  if (kind === 'aws') return { namespace: 'aws' };
  // A model call is a call to a remote service.
  if (kind === 'model') return { namespace: 'remote' };
  return {};
}

/** X-Ray names allow letters, digits, whitespace and _ . : / % & # = + \ - @ (max 200). */
const XRAY_NAMES = new Map<string, string>();
function xrayName(name: string): string {
  // Span names recur on every turn (run, model hosts, tools): the Unicode regex runs once each.
  let out = XRAY_NAMES.get(name);
  if (out === undefined) {
    out = name.replace(/[^\p{L}\p{N}\s_.:/%&#=+\\\-@]/gu, '_').slice(0, 200) || 'span';
    if (XRAY_NAMES.size >= 256) XRAY_NAMES.clear();
    XRAY_NAMES.set(name, out);
  }
  return out;
}

function awsBlock(attributes: SpanAttributes): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (attributes.awsOperation) out.operation = attributes.awsOperation;
  if (attributes.awsRegion) out.region = attributes.awsRegion;
  if (attributes.awsRequestId) out.request_id = attributes.awsRequestId;
  if (attributes.awsRetries !== undefined) out.retries = attributes.awsRetries;
  return out;
}
