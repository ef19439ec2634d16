/**
 * The tracing port: the runtime opens spans, a backend (lib/tracing) turns them into X-Ray
 * subsegments, EMF metrics and logs. The no-op tracer is the default and costs nothing.
 */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface Span {
  setAttributes(attributes: SpanAttributes): void;
  recordError(error: unknown): void;
  end(): void;
}

export interface Tracer {
  startSpan(name: string, attributes?: SpanAttributes, parent?: Span): Span;
}

const NOOP_SPAN: Span = {
  setAttributes() {},
  recordError() {},
  end() {},
};

export const noopTracer: Tracer = {
  startSpan: () => NOOP_SPAN,
};
