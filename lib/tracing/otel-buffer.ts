import { diag, TraceFlags } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';

/** A full buffer is exported during the invocation; the rest waits for `flush()`. */
const MAX_BUFFERED = 512;

/**
 * Keeps ended spans until `forceFlush` (or a full buffer): unlike the SDK's batch processor it
 * has no timer, so no export starts between invocations.
 */
export class BufferedSpanProcessor implements SpanProcessor {
  readonly #exporter: SpanExporter;
  #buffer: ReadableSpan[] = [];
  readonly #inFlight = new Set<Promise<void>>();

  constructor(exporter: SpanExporter) {
    this.#exporter = exporter;
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    this.#buffer.push(span);
    if (this.#buffer.length >= MAX_BUFFERED) this.#export();
  }

  async forceFlush(): Promise<void> {
    this.#export();
    await Promise.all([...this.#inFlight]);
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    await this.#exporter.shutdown();
  }

  #export(): void {
    if (this.#buffer.length === 0) return;
    const spans = this.#buffer;
    this.#buffer = [];
    const done = new Promise<void>((resolve) => {
      // A failed export is dropped and reported on OTel's diag channel: tracing never fails a run.
      this.#exporter.export(spans, (result) => {
        if (result.code !== 0) diag.error(`dropped ${spans.length} spans`, result.error);
        resolve();
      });
    }).finally(() => this.#inFlight.delete(done));
    this.#inFlight.add(done);
  }
}
