import {
  activeSpan,
  type PayloadOptions,
  type Span,
  type SpanAttributes,
  type SpanOptions,
  type TraceContext,
  type Tracer,
} from '../core/tracer.js';

/** A tracer that can send what it buffered (the otel backend); awaited before a handler answers. */
export interface FlushableTracer extends Tracer {
  flush(timeoutMs?: number): Promise<void>;
}

/** Flushes `tracer` when it buffers (otel, several backends); a no-op for the others. */
export async function flushTracer(tracer: Tracer, timeoutMs?: number): Promise<void> {
  const flush = (tracer as Partial<FlushableTracer>).flush;
  if (typeof flush === 'function') await flush.call(tracer, timeoutMs).catch(() => undefined);
}

/** Buffering tracers alive in this process: what a handler flushes before it answers. */
const buffering = new Set<FlushableTracer>();

/** Called by a buffering tracer (the otel backend) when it starts and when it closes. */
export function registerBuffering(tracer: FlushableTracer, alive: boolean): void {
  if (alive) buffering.add(tracer);
  else buffering.delete(tracer);
}

/**
 * Flushes every buffering tracer of the process within `timeoutMs` (lib/aws awaits it at the
 * end of each invocation: a frozen sandbox must not hold unsent spans). No-op without one.
 */
export async function flushBufferedTracers(timeoutMs?: number): Promise<void> {
  if (buffering.size === 0) return;
  await Promise.all([...buffering].map((tracer) => flushTracer(tracer, timeoutMs)));
}

/** Several backends at once (`AGENT_KERNEL_TRACING=cloudwatch,langfuse`): one span each. */
export class MultiTracer implements FlushableTracer {
  readonly tracers: readonly Tracer[];

  constructor(tracers: readonly Tracer[]) {
    this.tracers = tracers;
  }

  startSpan(name: string, attributes: SpanAttributes = {}, options: SpanOptions = {}): Span {
    // Each backend gets its own part of the parent: they never see each other's spans.
    const remote = options.traceHeader !== undefined || options.traceContext !== undefined;
    const parent = options.parent ?? (remote ? undefined : activeSpan());
    const parts = this.tracers.map((tracer, i) =>
      tracer.startSpan(name, attributes, {
        ...options,
        ...(parent instanceof MultiSpan ? { parent: parent.parts[i] } : {}),
      }),
    );
    return new MultiSpan(parts);
  }

  async flush(timeoutMs?: number): Promise<void> {
    await Promise.all(this.tracers.map((tracer) => flushTracer(tracer, timeoutMs)));
  }

  async close(): Promise<void> {
    await Promise.all(this.tracers.map((t) => (t as { close?: () => Promise<void> }).close?.()));
  }
}

export class MultiSpan implements Span {
  readonly parts: readonly Span[];

  constructor(parts: readonly Span[]) {
    this.parts = parts;
  }

  setAttributes(attributes: SpanAttributes): void {
    for (const part of this.parts) part.setAttributes(attributes);
  }

  setPayload(name: 'input' | 'output', value: unknown, options?: PayloadOptions): void {
    // A summary function is built once, not once per backend.
    const resolved = typeof value === 'function' ? value() : value;
    for (const part of this.parts) part.setPayload(name, resolved, options);
  }

  recordError(error: unknown): void {
    for (const part of this.parts) part.recordError(error);
  }

  end(): void {
    for (const part of this.parts) part.end();
  }

  /** The first backend's header (cloudwatch's when listed: X-Ray reads it from SQS itself). */
  traceHeader(): string | undefined {
    for (const part of this.parts) {
      const header = part.traceHeader();
      if (header) return header;
    }
    return undefined;
  }

  /** The first OTel part's W3C context: the OTel backends continue from it, X-Ray from the header. */
  traceContext(): TraceContext | undefined {
    for (const part of this.parts) {
      const context = part.traceContext?.();
      if (context) return context;
    }
    return undefined;
  }
}
