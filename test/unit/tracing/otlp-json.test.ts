import type { Attributes } from '@opentelemetry/api';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { encodeTraceRequest, nanos } from '../../../lib/tracing/otlp-json.js';

/** Spans the real SDK ended, with these attributes. */
async function spansWith(attributes: Attributes, event?: Attributes): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
    sampler: new AlwaysOnSampler(),
  });
  const span = provider.getTracer('otlp-json-test', '1.0.0').startSpan('encode', { attributes });
  if (event) span.addEvent('ev', event);
  span.end();
  await provider.forceFlush();
  return memory.getFinishedSpans();
}

interface Encoded {
  resourceSpans: {
    scopeSpans: {
      scope: { name: string; version?: string };
      spans: {
        traceId: string;
        spanId: string;
        kind: number;
        startTimeUnixNano: string;
        attributes: { key: string; value: unknown }[];
        events: { attributes: { key: string; value: unknown }[] }[];
      }[];
    }[];
  }[];
}

async function encodedSpan(attributes: Attributes, event?: Attributes) {
  const body = JSON.parse(encodeTraceRequest(await spansWith(attributes, event))) as Encoded;
  const span = body.resourceSpans[0]?.scopeSpans[0]?.spans[0];
  if (!span) throw new Error('no span encoded');
  return { span, values: Object.fromEntries(span.attributes.map((a) => [a.key, a.value])) };
}

describe('encodeTraceRequest (OTLP/JSON mapping)', () => {
  it('encodes ints as decimal strings and doubles as numbers', async () => {
    // Act
    const { values } = await encodedSpan({ i: 42, neg: -7, zero: 0, d: 1.5, tiny: 1e-7 });

    // Assess: proto3 JSON writes int64 as a string.
    expect(values).toEqual({
      i: { intValue: '42' },
      neg: { intValue: '-7' },
      zero: { intValue: '0' },
      d: { doubleValue: 1.5 },
      tiny: { doubleValue: 1e-7 },
    });
  });

  it('writes integers past 2^53 exactly, and past int64 as doubles', async () => {
    // Act
    const { values } = await encodedSpan({ big: 2 ** 60, huge: 1e21, under: -(2 ** 63) * 2 });

    // Assess: `${1e21}` is "1e+21", which no collector parses as an int64.
    expect(values).toEqual({
      big: { intValue: '1152921504606846976' },
      huge: { doubleValue: 1e21 },
      under: { doubleValue: -(2 ** 64) },
    });
  });

  it('writes non-finite numbers as the proto3 JSON strings, not null', async () => {
    // Act
    const { values } = await encodedSpan({ nan: Number.NaN, inf: Infinity, ninf: -Infinity });

    // Assess
    expect(values).toEqual({
      nan: { doubleValue: 'NaN' },
      inf: { doubleValue: 'Infinity' },
      ninf: { doubleValue: '-Infinity' },
    });
  });

  it('encodes booleans, strings, arrays and empty values', async () => {
    // Act
    const { values } = await encodedSpan({
      t: true,
      f: false,
      empty: '',
      quoted: 'a"b\n',
      ints: [1, 2],
      mixed: [1.5, 2],
      strings: ['a', ''],
      flags: [true],
      none: [],
      holes: [null, 'x'],
    });

    // Assess
    expect(values).toEqual({
      t: { boolValue: true },
      f: { boolValue: false },
      empty: { stringValue: '' },
      quoted: { stringValue: 'a"b\n' },
      ints: { arrayValue: { values: [{ intValue: '1' }, { intValue: '2' }] } },
      mixed: { arrayValue: { values: [{ doubleValue: 1.5 }, { intValue: '2' }] } },
      strings: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: '' }] } },
      flags: { arrayValue: { values: [{ boolValue: true }] } },
      none: { arrayValue: { values: [] } },
      holes: { arrayValue: { values: [{}, { stringValue: 'x' }] } },
    });
  });

  it('encodes bytes as base64, a view of a larger buffer as its own bytes', async () => {
    // Prepare: a Uint8Array that starts inside its ArrayBuffer.
    const view = new Uint8Array([9, 0, 255, 1, 9]).subarray(1, 4);

    // Act
    const { values } = await encodedSpan({ bytes: view, none: new Uint8Array() } as never);

    // Assess
    expect(values).toEqual({ bytes: { bytesValue: 'AP8B' }, none: { bytesValue: '' } });
  });

  it('encodes nested objects as kvlistValue, empty ones too', async () => {
    // Act
    const { values } = await encodedSpan({ obj: { a: 1, n: { b: 'x' } }, empty: {} } as never);

    // Assess
    expect(values).toEqual({
      obj: {
        kvlistValue: {
          values: [
            { key: 'a', value: { intValue: '1' } },
            {
              key: 'n',
              value: { kvlistValue: { values: [{ key: 'b', value: { stringValue: 'x' } }] } },
            },
          ],
        },
      },
      empty: { kvlistValue: { values: [] } },
    });
  });

  it('encodes a cyclic value with a marker past 16 levels instead of failing the batch', async () => {
    // Arrange: the SDK drops such a value, a span built elsewhere may not.
    const cyclic: Record<string, unknown> = { a: 'x' };
    cyclic.self = cyclic;
    const [span] = await spansWith({});
    Object.defineProperty(span, 'attributes', { value: { cyclic, other: 'kept' } });

    // Act
    const body = JSON.parse(encodeTraceRequest([span as ReadableSpan])) as Encoded;

    // Assess
    const attrs = body.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.attributes ?? [];
    type Kv = { kvlistValue?: { values: { key: string; value: Kv }[] }; stringValue?: string };
    let level = attrs[0]?.value as Kv;
    for (let i = 0; i < 16; i++) {
      expect(level.kvlistValue?.values[0]).toEqual({ key: 'a', value: { stringValue: 'x' } });
      level = level.kvlistValue?.values[1]?.value as Kv;
    }
    expect(level).toEqual({ stringValue: '[nested too deep]' });
    expect(attrs[1]).toEqual({ key: 'other', value: { stringValue: 'kept' } });
  });

  it('encodes event attributes the same way', async () => {
    // Act
    const { span } = await encodedSpan({}, { n: 3, d: 0.25, nan: Number.NaN });

    // Assess
    expect(span.events[0]?.attributes).toEqual([
      { key: 'n', value: { intValue: '3' } },
      { key: 'd', value: { doubleValue: 0.25 } },
      { key: 'nan', value: { doubleValue: 'NaN' } },
    ]);
  });

  it('writes hex ids, the OTLP kind and nanosecond times as strings', async () => {
    // Act
    const { span } = await encodedSpan({});

    // Assess: SPAN_KIND_INTERNAL is 1 in OTLP (0 in the API's enum).
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span.kind).toBe(1);
    expect(span.startTimeUnixNano).toMatch(/^\d{19}$/);
    expect(nanos([1, 5])).toBe('1000000005');
    expect(nanos([0, 42])).toBe('42');
  });

  it('groups a batch by resource and names each scope', async () => {
    // Act
    const spans = [...(await spansWith({ a: 1 })), ...(await spansWith({ b: 2 }))];
    const body = JSON.parse(encodeTraceRequest(spans)) as Encoded;

    // Assess: two providers, two resources; each names its scope.
    expect(body.resourceSpans).toHaveLength(2);
    expect(body.resourceSpans.map((r) => r.scopeSpans[0]?.scope)).toEqual([
      { name: 'otlp-json-test', version: '1.0.0' },
      { name: 'otlp-json-test', version: '1.0.0' },
    ]);
  });
});
