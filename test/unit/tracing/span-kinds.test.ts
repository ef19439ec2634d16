import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { inInvocationSpan } from '../../../lib/aws/middleware/handler-stack.js';
import { processBatch } from '../../../lib/aws/middleware/sqs-batch.js';
import { traceChild } from '../../../lib/core/index.js';
import { OtelTracer } from '../../../lib/tracing/index.js';

// Span kinds as the OTel conventions read them: the span answering a request is SERVER, one per
// queue message CONSUMER, an SQS send PRODUCER, other calls out CLIENT, the rest INTERNAL.
function tracer() {
  const exporter = new InMemorySpanExporter();
  return {
    exporter,
    tracer: new OtelTracer({ env: {}, config: { otel: ['otlp'] }, exporters: [exporter] }),
  };
}

const record = (id: string) =>
  ({ messageId: id, body: '{}', attributes: {}, messageAttributes: {} }) as unknown as SQSRecord;

describe('OTel span kinds', () => {
  it('a function answering a request: SERVER, its SQS send PRODUCER, its DynamoDB call CLIENT', async () => {
    // Prepare
    const { exporter, tracer: otel } = tracer();
    const handler = inInvocationSpan(otel, 'http', async () => {
      await traceChild('SQS', 'aws', { awsOperation: 'SendMessage' }, async () => {});
      await traceChild('DynamoDB', 'aws', { awsOperation: 'GetItem' }, async () => {});
      await traceChild('deliver', 'delivery', {}, async () => {});
    });

    // Act
    await handler({}, {} as never);
    await otel.flush();
    const kinds = Object.fromEntries(exporter.getFinishedSpans().map((s) => [s.name, s.kind]));
    await otel.close();

    // Assess
    expect(kinds).toMatchObject({
      http: SpanKind.SERVER,
      SQS: SpanKind.PRODUCER,
      DynamoDB: SpanKind.CLIENT,
    });
    expect(Object.entries(kinds).find(([name]) => name.startsWith('deliver'))?.[1]).toBe(
      SpanKind.INTERNAL,
    );
  });

  it('one span per queue message: CONSUMER', async () => {
    // Prepare
    const { exporter, tracer: otel } = tracer();

    // Act
    await processBatch({ Records: [record('m1'), record('m2')] }, async () => {}, {
      tracer: otel,
      spanName: 'job',
    });
    await otel.flush();
    const spans = exporter.getFinishedSpans();
    await otel.close();

    // Assess
    expect(spans.map((s) => [s.name, s.kind])).toEqual([
      ['job', SpanKind.CONSUMER],
      ['job', SpanKind.CONSUMER],
    ]);
  });
});
