import { activeSpan, type Span, type SpanOptions, type TraceContext } from '../core/tracer.js';
import { parseTraceHeader } from './xray.js';

/**
 * Trace propagation through SQS: the sender puts its span's X-Ray header in the message's
 * `AWSTraceHeader` system attribute (the one X-Ray itself reads) and, with an OTel backend, its
 * W3C `traceparent` / `tracestate` in message attributes; the receiver opens its spans with
 * `{ traceHeader, traceContext }`, so each backend's spans join the originating trace.
 */
export const TRACE_HEADER_ATTRIBUTE = 'AWSTraceHeader';

type SystemAttributes = Record<string, { DataType: string; StringValue?: string }>;

/** The header of `span` (the active span by default); undefined outside a traced run. */
export function currentTraceHeader(span: Span | undefined = activeSpan()): string | undefined {
  return span?.traceHeader();
}

/**
 * A SendMessage input (or SendMessageBatch entry) carrying the trace header. Without a header
 * (tracing off) the input is returned as it is.
 */
export function withTraceHeader<T extends object>(
  input: T,
  header: string | undefined = currentTraceHeader(),
): T & { MessageSystemAttributes?: SystemAttributes } {
  if (!header) return input;
  const current = (input as { MessageSystemAttributes?: SystemAttributes }).MessageSystemAttributes;
  return {
    ...input,
    MessageSystemAttributes: {
      ...current,
      [TRACE_HEADER_ATTRIBUTE]: { DataType: 'String', StringValue: header },
    },
  };
}

/** The shapes a received message comes in: a Lambda SQS event record or a ReceiveMessage result. */
export interface SqsMessageLike {
  /** Lambda event record: system attributes. */
  readonly attributes?: { readonly AWSTraceHeader?: string | undefined };
  /** Lambda event record: message attributes (a sender that used those instead). */
  readonly messageAttributes?: Record<string, { stringValue?: string } | undefined>;
  /** ReceiveMessage (ask for `MessageSystemAttributeNames: ['AWSTraceHeader']`). */
  readonly Attributes?: { readonly AWSTraceHeader?: string | undefined };
  readonly MessageAttributes?: Record<string, { StringValue?: string } | undefined>;
}

/** The trace header a message carries, if any valid one; a malformed header is ignored. */
export function traceHeaderFromSqs(message: SqsMessageLike): string | undefined {
  const key = TRACE_HEADER_ATTRIBUTE;
  const header =
    message.attributes?.[key] ??
    message.Attributes?.[key] ??
    message.messageAttributes?.[key]?.stringValue ??
    message.MessageAttributes?.[key]?.StringValue;
  if (!header) return undefined;
  try {
    parseTraceHeader(header);
    return header;
  } catch {
    // A header we cannot read starts a new trace rather than failing the message.
    return undefined;
  }
}

/** W3C trace context as SQS message attributes (the OTel backends' ids; X-Ray ignores them). */
export const TRACEPARENT_ATTRIBUTE = 'traceparent';
export const TRACESTATE_ATTRIBUTE = 'tracestate';
/** SQS refuses a message with more than 10 message attributes. */
const MAX_MESSAGE_ATTRIBUTES = 10;
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

type MessageAttributes = Record<string, { DataType: string; StringValue?: string }>;

/** The W3C context of `span` (the active span by default); undefined without an OTel backend. */
export function currentTraceContext(
  span: Span | undefined = activeSpan(),
): TraceContext | undefined {
  return span?.traceContext?.();
}

/**
 * `withTraceHeader` plus the span's W3C context as `traceparent` / `tracestate` message
 * attributes, only where they fit under SQS's limit of 10 (a sender's own attributes win).
 * For a SendMessage input or each SendMessageBatch entry.
 */
export function withTraceContext<T extends object>(
  input: T,
  span: Span | undefined = activeSpan(),
): T & { MessageSystemAttributes?: SystemAttributes; MessageAttributes?: MessageAttributes } {
  const withHeader = withTraceHeader(input, currentTraceHeader(span));
  const context = currentTraceContext(span);
  if (!context) return withHeader;
  const current = (input as { MessageAttributes?: MessageAttributes }).MessageAttributes ?? {};
  const added: MessageAttributes = {};
  let room = MAX_MESSAGE_ATTRIBUTES - Object.keys(current).length;
  const pairs: [string, string | undefined][] = [
    [TRACEPARENT_ATTRIBUTE, context.traceparent],
    [TRACESTATE_ATTRIBUTE, context.tracestate],
  ];
  for (const [name, value] of pairs) {
    if (!value || name in current || room <= 0) continue;
    added[name] = { DataType: 'String', StringValue: value };
    room--;
  }
  if (Object.keys(added).length === 0) return withHeader;
  return { ...withHeader, MessageAttributes: { ...current, ...added } };
}

/** The W3C context a message carries, if a valid `traceparent` is among its attributes. */
export function traceContextFromSqs(message: SqsMessageLike): TraceContext | undefined {
  const read = (name: string) =>
    message.messageAttributes?.[name]?.stringValue ??
    message.MessageAttributes?.[name]?.StringValue;
  const traceparent = read(TRACEPARENT_ATTRIBUTE);
  if (!traceparent || !parseTraceparent(traceparent)) return undefined;
  const tracestate = read(TRACESTATE_ATTRIBUTE);
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** What a consumer opens its span with: the X-Ray header and the W3C context, those present. */
export function spanOptionsFromSqs(message: SqsMessageLike): SpanOptions {
  const traceHeader = traceHeaderFromSqs(message);
  const traceContext = traceContextFromSqs(message);
  return { ...(traceHeader ? { traceHeader } : {}), ...(traceContext ? { traceContext } : {}) };
}

export interface Traceparent {
  readonly traceId: string;
  readonly spanId: string;
  readonly sampled: boolean;
}

/** A `traceparent` header's ids, or undefined when invalid (all-zero ids, version ff). */
export function parseTraceparent(value: string): Traceparent | undefined {
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as string[];
  // Version 00 has exactly four fields; later versions may append more.
  if (version === 'ff' || (version === '00' && rest)) return undefined;
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return undefined;
  return { traceId: traceId!, spanId: spanId!, sampled: (Number.parseInt(flags!, 16) & 1) === 1 };
}

export function formatTraceparent(ids: Traceparent): string {
  return `00-${ids.traceId}-${ids.spanId}-${ids.sampled ? '01' : '00'}`;
}
