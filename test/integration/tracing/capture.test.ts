import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { withActiveSpan } from '../../../lib/core/index.js';
import { createDynamoClient } from '../../../lib/stores/index.js';
import type { SegmentDocument } from '../../../lib/tracing/index.js';
import {
  type CloudWatchSpan,
  CloudWatchTracer,
  captureClient,
  flattenSegment,
} from '../../../lib/tracing/index.js';

const client = createDynamoClient({ endpoint: inject('dynaliteEndpoint'), region: 'eu-west-1' });
afterAll(() => client.destroy());

describe('captureClient (a real DynamoDB client against dynalite)', () => {
  it('records each call as an aws subsegment of the active span and sends the trace header', async () => {
    // Prepare
    const docs: SegmentDocument[] = [];
    const tracer = new CloudWatchTracer({
      env: {},
      emitter: { send: (d) => docs.push(...flattenSegment(d)) },
      sink: () => {},
    });
    const headers: string[] = [];
    captureClient(client);
    client.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { headers?: Record<string, string> };
        headers.push(request.headers?.['X-Amzn-Trace-Id'] ?? '');
        return next(args);
      },
      { step: 'finalizeRequest', name: 'peekTraceHeader' },
    );
    const span = tracer.startSpan('handler', { requestId: 'req-1' }) as CloudWatchSpan;

    // Act
    await withActiveSpan(tracer, span, () => client.send(new ListTablesCommand({})));
    span.end();

    // Assess
    const aws = docs.find((d) => d.annotations?.kind === 'aws');
    expect(aws).toMatchObject({
      name: 'DynamoDB',
      namespace: 'aws',
      type: 'subsegment',
      parent_id: span.id,
      trace_id: span.traceId,
      aws: { operation: 'ListTables', region: 'eu-west-1', retries: 0 },
      annotations: { requestId: 'req-1' },
    });
    expect(headers).toEqual([`Root=${span.traceId};Parent=${aws?.id};Sampled=1`]);
  });

  it('forwards untouched outside a traced span', async () => {
    // Prepare
    const untraced = captureClient(
      createDynamoClient({ endpoint: inject('dynaliteEndpoint'), region: 'eu-west-1' }),
    );

    // Act
    const out = await untraced.send(new ListTablesCommand({}));
    untraced.destroy();

    // Assess
    expect(out.$metadata.httpStatusCode).toBe(200);
  });
});
