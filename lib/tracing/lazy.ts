import type { Span, SpanAttributes, SpanOptions, Tracer } from '../core/tracer.js';
import { type FlushableTracer, flushTracer } from './multi.js';

/** Lazy tracers still loading in this process: what a handler awaits before its first span. */
const loading = new Set<Promise<unknown>>();

/**
 * Resolves once every lazily loaded backend is ready (or failed). `withLogging` awaits it before
 * each invocation: free when nothing is loading, as after the first one.
 */
export async function tracersReady(): Promise<void> {
  if (loading.size > 0) await Promise.all([...loading]);
}

const IDLE_SPAN: Span = {
  setAttributes() {},
  setPayload() {},
  recordError() {},
  end() {},
  traceHeader: () => undefined,
};

/**
 * A backend whose module is imported when the tracer is made, not when its importer loads: the
 * OTel SDK is evaluated only by functions configured for it. Spans opened before it is ready
 * are not recorded (lib/aws awaits `tracersReady()` first); if loading fails, none are.
 */
export class LazyTracer implements FlushableTracer {
  #tracer: Tracer | undefined;
  #error: unknown;
  readonly ready: Promise<void>;

  constructor(load: () => Promise<Tracer>) {
    const ready = load().then(
      (tracer) => {
        this.#tracer = tracer;
      },
      (err: unknown) => {
        this.#error = err;
      },
    );
    this.ready = ready.finally(() => loading.delete(this.ready));
    loading.add(this.ready);
  }

  /** The backend once loaded. */
  get tracer(): Tracer | undefined {
    return this.#tracer;
  }

  /** Why loading failed (a bad preset variable, a bundle built without the backend). */
  get error(): unknown {
    return this.#error;
  }

  startSpan(name: string, attributes?: SpanAttributes, options?: SpanOptions): Span {
    return this.#tracer ? this.#tracer.startSpan(name, attributes, options) : IDLE_SPAN;
  }

  async flush(timeoutMs?: number): Promise<void> {
    if (this.#tracer) await flushTracer(this.#tracer, timeoutMs);
  }

  async close(): Promise<void> {
    await this.ready;
    await (this.#tracer as { close?: () => Promise<void> } | undefined)?.close?.();
  }
}
