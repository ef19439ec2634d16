import type { Attributes, HrTime, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';

/**
 * OTLP/JSON (ExportTraceServiceRequest) written straight to one string: the fields and
 * encodings of the OTLP specification's JSON mapping (hex ids, nanosecond times as decimal
 * strings, `kind` one above the API's enum), without the object tree a transformer builds and
 * then stringifies. The resource and scope of a batch are encoded once per object.
 */
export function encodeTraceRequest(spans: readonly ReadableSpan[]): string {
  const byResource = new Map<ReadableSpan['resource'], Map<string, ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = byResource.get(span.resource);
    if (!scopes) {
      scopes = new Map();
      byResource.set(span.resource, scopes);
    }
    const scope = span.instrumentationScope;
    const key = `${scope.name}@${scope.version ?? ''}:${scope.schemaUrl ?? ''}`;
    const list = scopes.get(key);
    if (list) list.push(span);
    else scopes.set(key, [span]);
  }
  const resourceSpans: string[] = [];
  for (const [resource, scopes] of byResource) {
    const scopeSpans: string[] = [];
    for (const list of scopes.values()) {
      const first = list[0] as ReadableSpan;
      const schema = first.instrumentationScope.schemaUrl;
      scopeSpans.push(
        `{"scope":${scopeJson(first.instrumentationScope)},"spans":[${list.map(spanJson).join(',')}]${schema ? `,"schemaUrl":${JSON.stringify(schema)}` : ''}}`,
      );
    }
    resourceSpans.push(
      `{"resource":${resourceJson(resource)},"scopeSpans":[${scopeSpans.join(',')}]${resource.schemaUrl ? `,"schemaUrl":${JSON.stringify(resource.schemaUrl)}` : ''}}`,
    );
  }
  return `{"resourceSpans":[${resourceSpans.join(',')}]}`;
}

const resourceCache = new WeakMap<object, string>();

function resourceJson(resource: ReadableSpan['resource']): string {
  let json = resourceCache.get(resource);
  if (json === undefined) {
    json = `{"attributes":${attributesJson(resource.attributes)},"droppedAttributesCount":0}`;
    resourceCache.set(resource, json);
  }
  return json;
}

const scopeCache = new WeakMap<object, string>();

function scopeJson(scope: ReadableSpan['instrumentationScope']): string {
  let json = scopeCache.get(scope);
  if (json === undefined) {
    const version = scope.version ? `,"version":${JSON.stringify(scope.version)}` : '';
    json = `{"name":${JSON.stringify(scope.name)}${version}}`;
    scopeCache.set(scope, json);
  }
  return json;
}

function spanJson(span: ReadableSpan): string {
  const ctx = span.spanContext();
  const parent = span.parentSpanContext;
  const state = ctx.traceState?.serialize();
  const { code, message } = span.status;
  let out = `{"traceId":"${ctx.traceId}","spanId":"${ctx.spanId}"`;
  if (parent?.spanId) out += `,"parentSpanId":"${parent.spanId}"`;
  if (state) out += `,"traceState":${JSON.stringify(state)}`;
  out += `,"name":${JSON.stringify(span.name)},"kind":${span.kind + 1}`;
  out += `,"startTimeUnixNano":"${nanos(span.startTime)}","endTimeUnixNano":"${nanos(span.endTime)}"`;
  out += `,"attributes":${attributesJson(span.attributes)},"droppedAttributesCount":${span.droppedAttributesCount}`;
  out += `,"events":[${span.events.map(eventJson).join(',')}],"droppedEventsCount":${span.droppedEventsCount}`;
  out += `,"status":{"code":${code}${message ? `,"message":${JSON.stringify(message)}` : ''}}`;
  out += `,"links":[${span.links.map(linkJson).join(',')}],"droppedLinksCount":${span.droppedLinksCount}`;
  return `${out},"flags":${flags(ctx, parent?.isRemote)}}`;
}

function eventJson(event: ReadableSpan['events'][number]): string {
  return `{"name":${JSON.stringify(event.name)},"timeUnixNano":"${nanos(event.time)}","attributes":${attributesJson(event.attributes ?? {})},"droppedAttributesCount":${event.droppedAttributesCount ?? 0}}`;
}

function linkJson(link: ReadableSpan['links'][number]): string {
  const { traceId, spanId, traceState } = link.context;
  const state = traceState?.serialize();
  return `{"traceId":"${traceId}","spanId":"${spanId}"${state ? `,"traceState":${JSON.stringify(state)}` : ''},"attributes":${attributesJson(link.attributes ?? {})},"droppedAttributesCount":${link.droppedAttributesCount ?? 0},"flags":${flags(link.context, link.context.isRemote)}}`;
}

/** W3C trace flags in the low byte, then OTLP's "has is-remote" and "is remote" bits. */
function flags(ctx: SpanContext, remote: boolean | undefined): number {
  return (ctx.traceFlags & 0xff) | 0x100 | (remote ? 0x200 : 0);
}

/** `[seconds, nanoseconds]` as one decimal string: past 2^53, so no Number arithmetic. */
export function nanos(time: HrTime): string {
  const seconds = Math.trunc(time[0]);
  const ns = Math.trunc(time[1]);
  if (seconds <= 0) return String(Math.max(ns, 0));
  return `${seconds}${String(ns).padStart(9, '0')}`;
}

function attributesJson(attributes: Attributes, depth = 0): string {
  let out = '[';
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (value === undefined) continue;
    if (out.length > 1) out += ',';
    out += `{"key":${JSON.stringify(key)},"value":${anyValue(value, depth)}}`;
  }
  return `${out}]`;
}

/** int64 range of `intValue`; integers past it are sent as doubles, which they are in JS. */
const INT64 = 2 ** 63;
/** Deeper values (or a cycle) become one marker string, so one attribute cannot drop the batch. */
const MAX_DEPTH = 16;
const TOO_DEEP = '{"stringValue":"[nested too deep]"}';

function anyValue(value: unknown, depth = 0): string {
  switch (typeof value) {
    case 'string':
      return `{"stringValue":${JSON.stringify(value)}}`;
    case 'number':
      return numberValue(value);
    case 'boolean':
      return `{"boolValue":${value}}`;
    default:
      if (value === null || typeof value !== 'object') return '{}';
      if (depth >= MAX_DEPTH) return TOO_DEEP;
      if (value instanceof Uint8Array) {
        return `{"bytesValue":"${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')}"}`;
      }
      if (Array.isArray(value))
        return `{"arrayValue":{"values":[${value.map((v) => anyValue(v, depth + 1)).join(',')}]}}`;
      return `{"kvlistValue":{"values":${attributesJson(value as Attributes, depth + 1)}}}`;
  }
}

/**
 * The proto3 JSON mapping: int64 as a decimal string (`1e+21` is no int64), non-finite doubles
 * as the strings "NaN" / "Infinity" / "-Infinity" (JSON.stringify would write `null`).
 */
function numberValue(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < INT64) {
    return `{"intValue":"${Number.isSafeInteger(value) ? value : BigInt(value)}"}`;
  }
  if (Number.isFinite(value)) return `{"doubleValue":${value}}`;
  return `{"doubleValue":"${value > 0 ? 'Infinity' : value < 0 ? '-Infinity' : 'NaN'}"}`;
}
