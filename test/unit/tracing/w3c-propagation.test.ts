import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { withActiveSpan } from '../../../lib/core/index.js';
import {
  CloudWatchTracer,
  flattenSegment,
  MultiTracer,
  OtelTracer,
  type SegmentDocument,
} from '../../../lib/tracing/index.js';
import {
  parseTraceparent,
  spanOptionsFromSqs,
  traceContextFromSqs,
  withTraceContext,
} from '../../../lib/tracing/propagation.js';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

function backends() {
  const docs: SegmentDocument[] = [];
  const exporter = new InMemorySpanExporter();
  const cloudwatch = new CloudWatchTracer({
    env: {},
    emitter: { send: (d) => docs.push(...flattenSegment(d)) },
    sink: () => {},
  });
  const otel = new OtelTracer({ env: {}, config: { otel: ['otlp'] }, exporters: [exporter] });
  return { docs, exporter, otel, tracer: new MultiTracer([cloudwatch, otel]) };
}

const tenAttributes = Object.fromEntries(
  Array.from({ length: 10 }, (_, i) => [`a${i}`, { DataType: 'String', StringValue: `${i}` }]),
);

describe('W3C trace context through SQS message attributes', () => {
  it('links each backend of a cloudwatch,otel sender to its own part of the consumer', async () => {
    // Prepare: the ws-message function sends a job; the worker opens its span from the record.
    const sender = backends();
    const worker = backends();
    const ws = sender.tracer.startSpan('ws-message');
    const input = withActiveSpan(sender.tracer, ws, () => withTraceContext({ MessageBody: '{}' }));
    ws.end();
    const record = {
      attributes: { AWSTraceHeader: input.MessageSystemAttributes?.AWSTraceHeader?.StringValue },
      messageAttributes: {
        traceparent: { stringValue: input.MessageAttributes?.traceparent?.StringValue },
      },
    };

    // Act
    worker.tracer.startSpan('job', {}, spanOptionsFromSqs(record)).end();
    await Promise.all([sender.otel.flush(), worker.otel.flush()]);

    // Assess: OTel parent is the OTel ws-message span, X-Ray parent the X-Ray one.
    const [otelWs] = sender.exporter.getFinishedSpans();
    const [otelJob] = worker.exporter.getFinishedSpans();
    expect(otelJob?.spanContext().traceId).toBe(otelWs?.spanContext().traceId);
    expect(otelJob?.parentSpanContext?.spanId).toBe(otelWs?.spanContext().spanId);
    const xrayWs = sender.docs.find((d) => d.annotations?.span === 'ws-message');
    expect(worker.docs.find((d) => d.name === 'job')).toMatchObject({
      trace_id: xrayWs?.trace_id,
      parent_id: xrayWs?.id,
    });
    expect(xrayWs?.id).not.toBe(otelWs?.spanContext().spanId);
  });

  it('keeps under the 10 message attributes SQS allows, and a sender its own traceparent', () => {
    // Prepare
    const { tracer } = backends();
    const span = tracer.startSpan('fanout');
    const nine = Object.fromEntries(Object.entries(tenAttributes).slice(0, 9));
    const own = { traceparent: { DataType: 'String', StringValue: PARENT } };

    // Act
    const [full, nearlyFull, mine] = withActiveSpan(tracer, span, () => [
      withTraceContext({ MessageBody: '{}', MessageAttributes: tenAttributes }),
      withTraceContext({ MessageBody: '{}', MessageAttributes: nine }),
      withTraceContext({ MessageBody: '{}', MessageAttributes: own }),
    ]);

    // Assess: the X-Ray header is a system attribute, outside the limit: always there.
    expect(full?.MessageAttributes).toEqual(tenAttributes);
    expect(full?.MessageSystemAttributes?.AWSTraceHeader).toBeDefined();
    expect(Object.keys(nearlyFull?.MessageAttributes ?? {})).toHaveLength(10);
    expect(nearlyFull?.MessageAttributes?.traceparent?.StringValue).toMatch(/^00-[0-9a-f]{32}-/);
    expect(mine?.MessageAttributes).toEqual(own);
  });

  it('tags each entry of a SendMessageBatch and carries tracestate through', async () => {
    // Prepare: a span continuing a caller's trace with vendor state.
    const { tracer, exporter, otel } = backends();
    const span = tracer.startSpan(
      'job',
      {},
      {
        traceContext: { traceparent: PARENT, tracestate: 'vendor=abc' },
      },
    );

    // Act
    const entries = withActiveSpan(tracer, span, () =>
      [
        { Id: '1', MessageBody: 'a' },
        { Id: '2', MessageBody: 'b' },
      ].map((e) => withTraceContext(e)),
    );
    span.end();
    await otel.flush();

    // Assess
    const job = exporter.getFinishedSpans()[0];
    expect(job?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(job?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    for (const entry of entries) {
      const parsed = parseTraceparent(entry.MessageAttributes?.traceparent?.StringValue ?? '');
      expect(parsed).toEqual({
        traceId: job?.spanContext().traceId,
        spanId: job?.spanContext().spanId,
        sampled: true,
      });
      expect(entry.MessageAttributes?.tracestate?.StringValue).toBe('vendor=abc');
    }
  });

  it('ignores an invalid traceparent: the X-Ray header (or a new trace) decides', () => {
    // Act
    const bad = [
      '00-00000000000000000000000000000000-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
      'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra',
      'garbage',
    ].map((value) =>
      traceContextFromSqs({ MessageAttributes: { traceparent: { StringValue: value } } }),
    );

    // Assess
    expect(bad).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(parseTraceparent(PARENT)).toMatchObject({ sampled: true });
    expect(parseTraceparent(`01${PARENT.slice(2)}-future`)).toBeDefined();
    expect(spanOptionsFromSqs({ attributes: {} })).toEqual({});
  });

  it('follows an unsampled W3C parent: nothing exported', async () => {
    // Prepare
    const { tracer, exporter, otel } = backends();

    // Act
    tracer
      .startSpan('job', {}, { traceContext: { traceparent: PARENT.replace(/01$/, '00') } })
      .end();
    await otel.flush();

    // Assess
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
