import {
  type Attributes,
  type Context,
  createTraceState,
  SpanKind as OtelKind,
  type Span as OtelSpanApi,
  type Tracer as OtelTracerApi,
  ROOT_CONTEXT,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  type IdGenerator,
  ParentBasedSampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import {
  activeSpan,
  type PayloadOptions,
  type Span,
  type SpanAttributes,
  type SpanKind,
  type SpanOptions,
  type TraceContext,
} from '../core/tracer.js';
import { type TracingConfig, tracingConfigFromEnv } from './config.js';
import { messagesJson, toGenAiMessages } from './genai-messages.js';
import { type FlushableTracer, registerBuffering } from './multi.js';
import {
  type AttributeOptions,
  kindAttributes,
  payloadKeys,
  spanName,
  toOtelAttributes,
} from './otel-attributes.js';
import { BufferedSpanProcessor } from './otel-buffer.js';
import { type OtlpTarget, otlpTargets } from './otel-presets.js';
import { presetExporter } from './otel-views.js';
import { OtlpHttpExporter } from './otlp-http.js';
import { formatTraceparent, parseTraceparent } from './propagation.js';
import { Redactor, secretsFromEnv } from './redact.js';
import { formatTraceHeader, parseTraceHeader, randomHex } from './xray.js';
import { discoverXraySdk } from './xray-sdk.js';

export interface OtelTracerOptions {
  /** Defaults to `tracingConfigFromEnv(env)`; fields given here win. */
  readonly config?: Partial<TracingConfig>;
  readonly env?: Record<string, string | undefined>;
  /** Defaults to one OTLP/HTTP (JSON) exporter per target of `config.otel`. */
  readonly exporters?: readonly SpanExporter[];
  readonly redactor?: Redactor;
  /** Upper bound of `flush()`: Lambda must answer even when a collector hangs. */
  readonly flushTimeoutMs?: number;
}

/** Ids a child carries from its parent, so each span can be found by session or run alone. */
const INHERITED = ['sessionId', 'runId', 'agent', 'framework', 'requestId'] as const;
const MAX_PAYLOAD_CHARS = 32_000;
const MESSAGES = { input: 'gen_ai.input.messages', output: 'gen_ai.output.messages' } as const;

/** A model span's payload as the conventions' messages (role + parts), valid JSON within bounds. */
function messagesOf(redacted: unknown, name: 'input' | 'output'): string {
  // Not a list of messages (a runner's own shape): one text part carrying it.
  const messages =
    toGenAiMessages(redacted, name) ?? toGenAiMessages(JSON.stringify(redacted) ?? '', name) ?? [];
  return messagesJson(messages, MAX_PAYLOAD_CHARS);
}

/**
 * The OpenTelemetry backend: our spans become OTel spans with the GenAI semantic conventions,
 * buffered and exported over OTLP/HTTP only by `flush()` (bounded), which a handler awaits
 * before it answers: nothing is sent from a frozen sandbox. No global provider is registered.
 */
export class OtelTracer implements FlushableTracer {
  readonly config: TracingConfig;
  readonly redactor: Redactor;
  readonly targets: readonly OtlpTarget[];
  readonly attributeOptions: AttributeOptions;
  readonly #provider: TracerProvider;
  readonly #tracer: OtelTracerApi;
  readonly #env: Record<string, string | undefined>;
  readonly #flushTimeoutMs: number;
  /** Span ids of Lambda's facade segment (from `_X_AMZN_TRACE_ID`): parents nobody exports. */
  readonly #facadeParents = new Set<string>();

  constructor(options: OtelTracerOptions = {}) {
    this.#env = options.env ?? process.env;
    this.config = tracingConfigFromEnv(this.#env, options.config);
    this.redactor = options.redactor ?? new Redactor({ secrets: secretsFromEnv(this.#env) });
    this.targets = otlpTargets(this.config.otel, this.#env);
    // Header values are credentials whatever their variable's name (OTEL_EXPORTER_OTLP_HEADERS).
    for (const target of this.targets) {
      for (const value of Object.values(target.headers)) this.redactor.learn(value);
    }
    this.#flushTimeoutMs = options.flushTimeoutMs ?? 2_000;
    this.attributeOptions = {
      principal: this.config.principal,
      traceloop: this.config.otel.includes('openllmetry'),
    };
    const exporters =
      options.exporters ??
      this.targets.map(
        (t) =>
          new OtlpHttpExporter({
            url: t.url,
            headers: t.headers,
            timeoutMillis: this.#flushTimeoutMs,
          }),
      );
    this.#provider = new TracerProvider({
      resource: defaultResource().merge(resourceFromAttributes(this.#resource())),
      spanProcessors: exporters.map(
        (exporter, i) =>
          new BufferedSpanProcessor(
            presetExporter(this.targets[i]?.preset, exporter, this.#facadeParents, {
              traceloop: this.attributeOptions.traceloop,
            }),
          ),
      ),
      sampler: new ParentBasedSampler({
        root: new TraceIdRatioBasedSampler(this.config.sampleRate),
      }),
      idGenerator: xrayIds,
    });
    this.#tracer = this.#provider.getTracer('agent-kernel');
    registerBuffering(this, true);
  }

  startSpan(name: string, attributes: SpanAttributes = {}, options: SpanOptions = {}): Span {
    discoverXraySdk();
    const kind = options.kind ?? 'internal';
    const remote = options.traceHeader !== undefined || options.traceContext !== undefined;
    const explicit = options.parent ?? (remote ? undefined : activeSpan());
    const parent = explicit instanceof OtelSpan ? explicit : undefined;
    const ids: SpanAttributes = {};
    for (const key of INHERITED) ids[key] = attributes[key] ?? parent?.ids[key];
    const all = { ...ids, ...attributes };
    // No attributes to startSpan: the SDK would clean them twice, and build them for a span
    // the sampler drops. Set once, on a recorded span only (our samplers ignore attributes).
    const span = this.#tracer.startSpan(
      spanName(name, kind, all),
      { kind: otelKind(kind, options, all) },
      this.#parentContext(parent, options),
    );
    const run = kind === 'run' ? undefined : parent?.run;
    if (span.isRecording()) {
      const own = this.#attributes(all, kindAttributes(kind, all, this.attributeOptions));
      span.setAttributes(own);
      // `invoke_agent` needs the provider and model, known only from the agent's model calls.
      if (kind === 'model') run?.fillFromModel(own);
    }
    return new OtelSpan(this, span, kind, ids, run);
  }

  /** Exports every buffered span, waiting at most `timeoutMs`; never throws. */
  async flush(timeoutMs = this.#flushTimeoutMs): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    const flushed = this.#provider.forceFlush({ timeoutMillis: timeoutMs }).catch(() => undefined);
    await Promise.race([flushed, deadline]);
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    registerBuffering(this, false);
    await this.flush();
    await this.#provider.shutdown().catch(() => undefined);
  }

  /** Redacted OTel attributes (an id or a model name never holds a secret, a value might). */
  #attributes(attributes: SpanAttributes, into: Attributes = {}): Attributes {
    return toOtelAttributes(attributes, this.attributeOptions, into, this.#redact);
  }

  readonly #redact = (value: string): string => this.redactor.string(value);

  /**
   * The parent span, else the remote parent of a W3C context (SQS message attributes), else of
   * an X-Ray header (SQS, Lambda's own trace).
   */
  #noteFacade(spanId: string): void {
    // One per invocation; bounded for a warm instance that serves many.
    if (this.#facadeParents.size >= 64) this.#facadeParents.clear();
    this.#facadeParents.add(spanId);
  }

  #parentContext(parent: OtelSpan | undefined, options: SpanOptions): Context {
    if (parent) return trace.setSpan(ROOT_CONTEXT, parent.span);
    const w3c = options.traceContext && parseTraceparent(options.traceContext.traceparent);
    if (w3c) {
      const state = options.traceContext?.tracestate;
      return trace.setSpanContext(ROOT_CONTEXT, {
        traceId: w3c.traceId,
        spanId: w3c.spanId,
        // Our own sender's decision: an unsampled parent exported nothing, neither do we.
        traceFlags: w3c.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
        isRemote: true,
        ...(state ? { traceState: createTraceState(state) } : {}),
      });
    }
    const raw = options.traceHeader ?? this.#env._X_AMZN_TRACE_ID;
    if (!raw) return ROOT_CONTEXT;
    try {
      const parsed = parseTraceHeader(raw);
      if (!parsed.parentId) return ROOT_CONTEXT;
      if (options.traceHeader === undefined) this.#noteFacade(parsed.parentId);
      return trace.setSpanContext(ROOT_CONTEXT, {
        traceId: parsed.traceId.slice(2).replace('-', ''),
        spanId: parsed.parentId,
        // X-Ray's decision (Lambda says Sampled=0 when active tracing is off) is not ours.
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      });
    } catch {
      return ROOT_CONTEXT; // A malformed header starts a new trace.
    }
  }

  #resource(): Attributes {
    const env = this.#env;
    const fn = env.AWS_LAMBDA_FUNCTION_NAME;
    return {
      'service.name': this.config.serviceName,
      ...(env.AWS_REGION ? { 'cloud.region': env.AWS_REGION } : {}),
      ...(fn
        ? {
            'cloud.provider': 'aws',
            'cloud.platform': 'aws_lambda',
            'faas.name': fn,
            ...(env.AWS_LAMBDA_FUNCTION_VERSION
              ? { 'faas.version': env.AWS_LAMBDA_FUNCTION_VERSION }
              : {}),
          }
        : {}),
    };
  }

  /** @internal For OtelSpan. */
  otelAttributes(attributes: SpanAttributes): Attributes {
    return this.#attributes(attributes);
  }
}

/** Trace ids X-Ray accepts too (its OTLP endpoint): 8 hex of epoch seconds, then random. */
const xrayIds: IdGenerator = {
  generateTraceId: () =>
    Math.floor(Date.now() / 1000)
      .toString(16)
      .padStart(8, '0') + randomHex(12),
  generateSpanId: () => randomHex(8),
};

export class OtelSpan implements Span {
  readonly #host: OtelTracer;
  readonly span: OtelSpanApi;
  readonly kind: SpanKind;
  readonly ids: SpanAttributes;
  /** The nearest `run` span: this one, or an ancestor's. */
  readonly run: OtelSpan | undefined;
  readonly #filled = new Set<string>();
  #ended = false;

  constructor(
    host: OtelTracer,
    span: OtelSpanApi,
    kind: SpanKind,
    ids: SpanAttributes,
    run?: OtelSpan,
  ) {
    this.#host = host;
    this.span = span;
    this.kind = kind;
    this.ids = ids;
    this.run = kind === 'run' ? this : run;
  }

  /** The first model call's provider and model become the run's (`invoke_agent`'s). */
  fillFromModel(attributes: Attributes): void {
    for (const key of ['gen_ai.provider.name', 'gen_ai.request.model']) {
      const value = attributes[key];
      if (value === undefined || this.#filled.has(key)) continue;
      this.#filled.add(key);
      this.span.setAttribute(key, value);
    }
  }

  setAttributes(attributes: SpanAttributes): void {
    for (const key of INHERITED) if (attributes[key] !== undefined) this.ids[key] = attributes[key];
    if (this.span.isRecording()) this.span.setAttributes(this.#host.otelAttributes(attributes));
  }

  setPayload(name: 'input' | 'output', value: unknown, options?: PayloadOptions): void {
    const sensitive = options?.sensitive ?? [];
    const capture = this.#host.config.capturePayloads;
    if (!capture && sensitive.length === 0) return;
    const resolved = typeof value === 'function' ? value() : value;
    if (!capture || !this.span.isRecording()) {
      // Not recorded, but learnt: an echo in a model's answer must still be hidden.
      this.#host.redactor.learnPaths(resolved, sensitive);
      return;
    }
    const redacted = this.#host.redactor.redact(resolved, sensitive);
    const text = (typeof redacted === 'string' ? redacted : JSON.stringify(redacted)) ?? '';
    const clipped = text.length > MAX_PAYLOAD_CHARS ? text.slice(0, MAX_PAYLOAD_CHARS) : text;
    const traceloop = this.#host.attributeOptions.traceloop;
    for (const key of payloadKeys(this.kind, name, traceloop)) {
      this.span.setAttribute(key, key === MESSAGES[name] ? messagesOf(redacted, name) : clipped);
    }
  }

  recordError(error: unknown): void {
    const err = error as { name?: unknown; message?: unknown } | undefined;
    const type = typeof err?.name === 'string' ? err.name : typeof error;
    const message = this.#host.redactor.string(
      typeof err?.message === 'string' ? err.message : String(error),
    );
    // Not recordException(error): its stack and message would leave unredacted.
    this.span.addEvent('exception', { 'exception.type': type, 'exception.message': message });
    this.span.setAttribute('error.type', type);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.end();
  }

  /** An X-Ray header carrying the OTel ids (the mapping X-Ray's OTLP endpoint uses too). */
  traceHeader(): string | undefined {
    const { traceId, spanId, traceFlags } = this.span.spanContext();
    return formatTraceHeader({
      traceId: `1-${traceId.slice(0, 8)}-${traceId.slice(8)}`,
      parentId: spanId,
      sampled: (traceFlags & TraceFlags.SAMPLED) !== 0,
    });
  }

  /** The W3C context of this span: what SQS message attributes carry to the consumer. */
  traceContext(): TraceContext | undefined {
    const { traceId, spanId, traceFlags, traceState } = this.span.spanContext();
    const traceparent = formatTraceparent({
      traceId,
      spanId,
      sampled: (traceFlags & TraceFlags.SAMPLED) !== 0,
    });
    const tracestate = traceState?.serialize();
    return tracestate ? { traceparent, tracestate } : { traceparent };
  }
}

const ROLE_KINDS = {
  server: OtelKind.SERVER,
  consumer: OtelKind.CONSUMER,
  producer: OtelKind.PRODUCER,
  client: OtelKind.CLIENT,
} as const;

/** The OTel span kind: the role a front gave, a queue send as PRODUCER, calls out as CLIENT. */
function otelKind(kind: SpanKind, options: SpanOptions, attributes: SpanAttributes): OtelKind {
  if (options.role) return ROLE_KINDS[options.role];
  if (kind === 'aws' && /^SendMessage/.test(String(attributes.awsOperation))) {
    return OtelKind.PRODUCER;
  }
  return kind === 'model' || kind === 'aws' ? OtelKind.CLIENT : OtelKind.INTERNAL;
}
