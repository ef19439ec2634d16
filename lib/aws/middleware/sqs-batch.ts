import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { inSpan, noopTracer, type Span, type Tracer } from '../../core/tracer.js';
import { spanOptionsFromSqs } from '../../tracing/propagation.js';
import { emitCount } from '../adapters/emf-count.js';
import type { FunctionLogger } from './json-logger.js';

export interface BatchOptions {
  readonly logger?: FunctionLogger | undefined;
  readonly tracer?: Tracer | undefined;
  /** Name of the span each record runs in (the function's role: `job`, `fanout`, …). */
  readonly spanName?: string;
}

/**
 * Processes a batch one record at a time and reports the failed ones (`batchItemFailures`),
 * so SQS retries only those. On a FIFO queue a failed record also fails the later records of
 * its group: handling them now would break the group's order. Each record runs in a span that
 * continues the trace its sender put in `AWSTraceHeader` (and `traceparent`).
 */
export async function processBatch(
  event: SQSEvent,
  handle: (record: SQSRecord, span: Span) => Promise<void>,
  options: BatchOptions = {},
): Promise<SQSBatchResponse> {
  const { logger, tracer = noopTracer, spanName = 'record' } = options;
  const failedGroups = new Set<string>();
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const group = record.attributes.MessageGroupId;
    if (group !== undefined && failedGroups.has(group)) {
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    try {
      await inSpan(
        tracer,
        spanName,
        { messageId: record.messageId },
        { ...spanOptionsFromSqs(record), role: 'consumer' },
        (span) => handle(record, span),
      );
    } catch (err) {
      logger?.error('record failed', { messageId: record.messageId, error: err as Error });
      if (group !== undefined) failedGroups.add(group);
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  if (batchItemFailures.length > 0) countFailedRecords(batchItemFailures.length, spanName, logger);
  return { batchItemFailures };
}

/**
 * One EMF line per batch with failures: `FailedRecords` (namespace AgentKernel, dimension
 * FunctionName). A reported item is no Lambda error, so the error alarms never see it; the stack
 * alarms on this metric instead.
 */
function countFailedRecords(count: number, spanName: string, logger?: FunctionLogger): void {
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME ?? spanName;
  emitCount(logger, {
    name: 'FailedRecords',
    value: count,
    dimensions: { FunctionName: functionName },
  });
}
