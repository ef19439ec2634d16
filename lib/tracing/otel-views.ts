import type { Attributes } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { OtelPreset } from './config.js';
import { TRACELOOP_KEYS } from './otel-attributes.js';

/**
 * What each preset's backend documents, no more: one set of spans, one view per exporter.
 * Traceloop's keys (and the deprecated usage names) go only to `openllmetry`; Langfuse gets its
 * trace keys (name, user, input, output) and a root it can find.
 */
export function presetExporter(
  preset: OtelPreset | undefined,
  exporter: SpanExporter,
  facadeParents: ReadonlySet<string>,
  options: { readonly traceloop: boolean } = { traceloop: true },
): SpanExporter {
  if (preset === 'openllmetry' || preset === undefined) return exporter;
  // Without `openllmetry` no span carries a Traceloop key: nothing to strip, no copy per span.
  if (preset !== 'langfuse' && !options.traceloop) return exporter;
  const strip = options.traceloop
    ? (spans: ReadableSpan[]) => spans.map(withoutTraceloop)
    : (spans: ReadableSpan[]) => spans;
  const view =
    preset === 'langfuse'
      ? (spans: ReadableSpan[]) => langfuseView(strip(spans), facadeParents)
      : strip;
  return {
    export: (spans, done) => exporter.export(view(spans), done),
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush ? { forceFlush: () => exporter.forceFlush!() } : {}),
  };
}

/** The span as exported, with other attributes and (optionally) no parent. */
function viewOf(span: ReadableSpan, attributes: Attributes, orphan = false): ReadableSpan {
  return Object.create(span, {
    attributes: { value: attributes, enumerable: true },
    ...(orphan ? { parentSpanContext: { value: undefined, enumerable: true } } : {}),
  });
}

function withoutTraceloop(span: ReadableSpan): ReadableSpan {
  const keys = Object.keys(span.attributes);
  if (!keys.some(isTraceloopKey)) return span;
  const kept: Attributes = {};
  for (const key of keys) if (!isTraceloopKey(key)) kept[key] = span.attributes[key];
  return viewOf(span, kept);
}

function isTraceloopKey(key: string): boolean {
  return key.startsWith('traceloop.') || key.startsWith('llm.') || TRACELOOP_KEYS.has(key);
}

/**
 * Langfuse names a trace after its root and reads user, session, input and output from trace
 * keys. The run span (`invoke_agent`) carries them, and so does the root of its trace when it
 * is in the same batch. A top span whose parent is Lambda's facade (never exported) is shown
 * without that parent, or Langfuse would find no root.
 */
function langfuseView(spans: ReadableSpan[], facadeParents: ReadonlySet<string>): ReadableSpan[] {
  const traceKeys = new Map<string, Attributes>();
  for (const span of spans) {
    if (span.attributes['gen_ai.operation.name'] !== 'invoke_agent') continue;
    traceKeys.set(span.spanContext().traceId, langfuseTraceKeys(span.attributes));
  }
  return spans.map((span) => {
    const parent = span.parentSpanContext;
    const orphan = parent !== undefined && facadeParents.has(parent.spanId);
    const isRoot = parent === undefined || orphan || parent.isRemote === true;
    const isRun = span.attributes['gen_ai.operation.name'] === 'invoke_agent';
    const keys = isRoot || isRun ? traceKeys.get(span.spanContext().traceId) : undefined;
    if (!keys && !orphan) return span;
    return viewOf(span, { ...span.attributes, ...keys }, orphan);
  });
}

function langfuseTraceKeys(run: Attributes): Attributes {
  const keys: Attributes = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined) keys[key] = value as string;
  };
  set('langfuse.trace.name', run['gen_ai.agent.name']);
  set('session.id', run['session.id']);
  set('user.id', run['enduser.id']);
  set('langfuse.trace.input', run['input.value']);
  set('langfuse.trace.output', run['output.value']);
  return keys;
}
