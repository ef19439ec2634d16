import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The tracing port: the runtime, the executor and the runners open spans; a backend
 * (lib/tracing) turns them into X-Ray subsegments, EMF metrics and logs. The no-op tracer is
 * the default and costs nothing.
 */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** What a span stands for; backends derive metrics from the kind and its attributes. */
export type SpanKind = 'run' | 'model' | 'tool' | 'hook' | 'delivery' | 'aws' | 'internal';

/** What a span is to its peers (OTel span kinds): a root answering a request, a queue consumer, … */
export type SpanRole = 'server' | 'consumer' | 'producer' | 'client';

export interface SpanOptions {
  readonly kind?: SpanKind;
  /** Set on the span that answers a request (`server`) or a queue message (`consumer`). */
  readonly role?: SpanRole;
  /** Defaults to the active span (see `withActiveSpan`). */
  readonly parent?: Span;
  /** A trace header from another process (an SQS message): the span continues that trace. */
  readonly traceHeader?: string;
  /** W3C trace context from another process: OTel backends prefer it to `traceHeader`. */
  readonly traceContext?: TraceContext;
}

/** W3C `traceparent` / `tracestate` (https://www.w3.org/TR/trace-context/). */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}

export interface PayloadOptions {
  /** Dotted paths of values that must never be recorded (a tool's sensitive arguments). */
  readonly sensitive?: readonly string[];
}

export interface Span {
  setAttributes(attributes: SpanAttributes): void;
  /**
   * Inputs and outputs: kept only when the backend is told to, and always redacted. A function
   * is called only then (a summary that costs something to build).
   */
  setPayload(name: 'input' | 'output', value: unknown, options?: PayloadOptions): void;
  recordError(error: unknown): void;
  end(): void;
  /** The header that lets another process continue this trace (undefined: not traced). */
  traceHeader(): string | undefined;
  /** The W3C context of this span, for backends with their own ids (OTel); optional. */
  traceContext?(): TraceContext | undefined;
}

export interface Tracer {
  startSpan(name: string, attributes?: SpanAttributes, options?: SpanOptions): Span;
}

const NOOP_SPAN: Span = {
  setAttributes() {},
  setPayload() {},
  recordError() {},
  end() {},
  traceHeader: () => undefined,
};

export const noopTracer: Tracer = {
  startSpan: () => NOOP_SPAN,
};

interface Active {
  readonly tracer: Tracer;
  readonly span: Span;
}

const active = new AsyncLocalStorage<Active>();

/** Runs `fn` with `span` as the parent of spans opened anywhere below it (runners, tools). */
export function withActiveSpan<T>(tracer: Tracer, span: Span, fn: () => T): T {
  if (tracer === noopTracer) return fn();
  return active.run({ tracer, span }, fn);
}

export function activeSpan(): Span | undefined {
  return active.getStore()?.span;
}

/** A child of the active span on the active tracer; a no-op span outside a traced run. */
export function startChildSpan(name: string, kind: SpanKind, attributes?: SpanAttributes): Span {
  const current = active.getStore();
  if (!current) return NOOP_SPAN;
  return current.tracer.startSpan(name, attributes, { kind, parent: current.span });
}

/**
 * `fn` with `span` (opened by `startChildSpan`) as the active span, so spans opened below nest
 * under it; the caller records errors and ends it (a native tool span decides what failed).
 */
export function withChildSpan<T>(span: Span, fn: () => T): T {
  const current = active.getStore();
  return current && span !== NOOP_SPAN ? active.run({ tracer: current.tracer, span }, fn) : fn();
}

/** `fn` inside a child span that records its error and always ends. */
export async function traceChild<T>(
  name: string,
  kind: SpanKind,
  attributes: SpanAttributes,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const current = active.getStore();
  if (!current) return fn(NOOP_SPAN);
  const span = current.tracer.startSpan(name, attributes, { kind, parent: current.span });
  try {
    return await active.run({ tracer: current.tracer, span }, () => fn(span));
  } catch (err) {
    span.recordError(err);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * `fn` inside a new span of `tracer` that is active below it, records its error and always
 * ends: how a handler opens its request span (with `traceHeader` from an SQS message).
 */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: SpanAttributes,
  options: SpanOptions,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  if (tracer === noopTracer) return fn(NOOP_SPAN);
  const span = tracer.startSpan(name, attributes, options);
  try {
    return await active.run({ tracer, span }, () => fn(span));
  } catch (err) {
    span.recordError(err);
    throw err;
  } finally {
    span.end();
  }
}
