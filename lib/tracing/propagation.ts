import { activeSpan, type Span } from '../core/tracer.js';
import { parseTraceHeader } from './xray.js';

/**
 * Trace propagation through SQS: the sender puts its span's X-Ray header in the message's
 * `AWSTraceHeader` system attribute (the one X-Ray itself reads), the receiver opens its spans
 * with `{ traceHeader }` so a worker's and a fan-out's segments join the originating trace.
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
