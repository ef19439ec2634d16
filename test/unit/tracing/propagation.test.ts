import { describe, expect, it } from 'vitest';
import { withActiveSpan } from '../../../lib/core/index.js';
import {
  type CloudWatchSpan,
  CloudWatchTracer,
  currentTraceHeader,
  flattenSegment,
  type SegmentDocument,
  traceHeaderFromSqs,
  withTraceHeader,
} from '../../../lib/tracing/index.js';

const HEADER = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';

function tracer(docs: SegmentDocument[], env: Record<string, string> = {}) {
  return new CloudWatchTracer({
    env,
    emitter: { send: (d) => docs.push(...flattenSegment(d)) },
    sink: () => {},
  });
}

describe('trace propagation through SQS', () => {
  it('puts the active span header in the AWSTraceHeader system attribute', () => {
    // Prepare
    const t = tracer([]);
    const span = t.startSpan('ws-message') as CloudWatchSpan;

    // Act
    const input = withActiveSpan(t, span, () =>
      withTraceHeader({
        QueueUrl: 'https://sqs/q.fifo',
        MessageBody: '{}',
        MessageSystemAttributes: { Other: { DataType: 'String', StringValue: 'x' } },
      }),
    );

    // Assess
    expect(input.MessageSystemAttributes).toEqual({
      Other: { DataType: 'String', StringValue: 'x' },
      AWSTraceHeader: {
        DataType: 'String',
        StringValue: `Root=${span.traceId};Parent=${span.id};Sampled=1`,
      },
    });
  });

  it('leaves the input alone outside a traced span', () => {
    // Prepare
    const input = { QueueUrl: 'q', MessageBody: '{}' };

    // Act
    const out = withTraceHeader(input);

    // Assess
    expect(out).toBe(input);
    expect(currentTraceHeader()).toBeUndefined();
  });

  it('reads the header from a Lambda event record, a ReceiveMessage result or message attributes', () => {
    // Act
    const found = [
      traceHeaderFromSqs({ attributes: { AWSTraceHeader: HEADER } }),
      traceHeaderFromSqs({ Attributes: { AWSTraceHeader: HEADER } }),
      traceHeaderFromSqs({ messageAttributes: { AWSTraceHeader: { stringValue: HEADER } } }),
      traceHeaderFromSqs({ MessageAttributes: { AWSTraceHeader: { StringValue: HEADER } } }),
    ];

    // Assess
    expect(found).toEqual([HEADER, HEADER, HEADER, HEADER]);
    expect(traceHeaderFromSqs({ attributes: {} })).toBeUndefined();
    expect(traceHeaderFromSqs({ attributes: { AWSTraceHeader: 'garbage' } })).toBeUndefined();
  });

  it('links a worker span to the sender: same trace, parent is the sending span', () => {
    // Prepare: the ws-message function sends a job; the worker receives it.
    const senderDocs: SegmentDocument[] = [];
    const workerDocs: SegmentDocument[] = [];
    const sender = tracer(senderDocs);
    const worker = tracer(workerDocs);
    const wsSpan = sender.startSpan('ws-message', { requestId: 'r-1' }) as CloudWatchSpan;
    const message = withActiveSpan(sender, wsSpan, () => withTraceHeader({ MessageBody: '{}' }));
    wsSpan.end();
    const record = {
      attributes: { AWSTraceHeader: message.MessageSystemAttributes?.AWSTraceHeader?.StringValue },
    };

    // Act
    const job = worker.startSpan('worker', {}, { traceHeader: traceHeaderFromSqs(record) });
    const run = withActiveSpan(worker, job, () => worker.startSpan('run', {}, { kind: 'run' }));
    run.end();
    job.end();

    // Assess
    const jobDoc = workerDocs.find((d) => d.name === 'worker');
    const runDoc = workerDocs.find((d) => d.name === 'run');
    expect(jobDoc).toMatchObject({
      type: 'subsegment',
      trace_id: wsSpan.traceId,
      parent_id: wsSpan.id,
    });
    expect(runDoc).toMatchObject({ trace_id: wsSpan.traceId, parent_id: jobDoc?.id });
  });

  it('makes a queue consumer off Lambda a segment of its own, linked to the sender', () => {
    // Prepare: the local stack's worker (no Lambda facade) receives a job from ws-message.
    const senderDocs: SegmentDocument[] = [];
    const workerDocs: SegmentDocument[] = [];
    const sender = tracer(senderDocs, { AGENT_KERNEL_SERVICE_NAME: 'ws-message-fn' });
    const worker = tracer(workerDocs, { AGENT_KERNEL_SERVICE_NAME: 'worker-fn' });
    const wsSpan = sender.startSpan('ws-message', {}) as CloudWatchSpan;
    const header = withActiveSpan(sender, wsSpan, () => wsSpan.traceHeader());
    wsSpan.end();

    // Act
    const job = worker.startSpan('job', {}, { traceHeader: header, role: 'consumer' });
    withActiveSpan(worker, job, () => worker.startSpan('run', {}, { kind: 'run' })).end();
    job.end();

    // Assess: its own node (named after the worker), the sender its parent, one trace.
    const jobDoc = workerDocs.find((d) => d.annotations?.span === 'job');
    expect(jobDoc).toMatchObject({
      name: 'worker-fn',
      trace_id: wsSpan.traceId,
      parent_id: wsSpan.id,
    });
    expect(jobDoc?.type).toBeUndefined();
    expect(workerDocs.find((d) => d.name === 'run')).toMatchObject({ parent_id: jobDoc?.id });
  });

  it('keeps a queue consumer on Lambda under the invocation (the facade is its node)', () => {
    // Prepare
    const docs: SegmentDocument[] = [];
    const t = tracer(docs, { _X_AMZN_TRACE_ID: HEADER });

    // Act
    t.startSpan('job', {}, { traceHeader: HEADER, role: 'consumer' }).end();

    // Assess
    expect(docs[0]).toMatchObject({ type: 'subsegment', parent_id: '53995c3f42cd8ad8' });
  });

  it('starts a new trace when handed a header it cannot read', () => {
    // Prepare
    const docs: SegmentDocument[] = [];
    const t = tracer(docs);

    // Act
    const open = () => t.startSpan('worker', {}, { traceHeader: 'Root=garbage' });
    open().end();

    // Assess
    expect(open).not.toThrow();
    expect(docs[0]?.type).toBeUndefined();
    expect(docs[0]?.trace_id).toMatch(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/);
  });

  it('hangs a Lambda function first span under the invocation trace', () => {
    // Prepare
    const docs: SegmentDocument[] = [];
    const t = tracer(docs, { _X_AMZN_TRACE_ID: HEADER });

    // Act
    t.startSpan('run', { runId: 'r' }).end();

    // Assess
    expect(docs[0]).toMatchObject({
      type: 'subsegment',
      trace_id: '1-5759e988-bd862e3fe1be46a994272793',
      parent_id: '53995c3f42cd8ad8',
    });
  });

  it('records but does not send a trace Lambda did not sample', () => {
    // Prepare
    const docs: SegmentDocument[] = [];
    const lines: string[] = [];
    const t = new CloudWatchTracer({
      env: { _X_AMZN_TRACE_ID: HEADER.replace('Sampled=1', 'Sampled=0') },
      emitter: { send: (d) => docs.push(...flattenSegment(d)) },
      sink: (line) => lines.push(line),
    });

    // Act
    t.startSpan('run', { agent: 'a' }, { kind: 'run' }).end();

    // Assess
    expect(docs).toEqual([]);
    expect(lines.some((line) => line.includes('"_aws"'))).toBe(true);
  });
});
