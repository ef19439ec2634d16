import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { emitCount } from '../../lib/aws/adapters/emf-count.js';
import type { BatchOptions } from '../../lib/aws/middleware/sqs-batch.js';
import { inSpan, noopTracer, type Span } from '../../lib/core/tracer.js';
import { spanOptionsFromSqs } from '../../lib/tracing/propagation.js';

/**
 * lib/aws/middleware/sqs-batch.ts `processBatch` on `@aws-lambda-powertools/batch`, for bench/powertools-choice.ts
 * only: the candidate we measured, with the options that make it behave as ours (async records,
 * a failed record fails only the later records of its group, never a Lambda error).
 * `fifoDefaults` keeps Powertools' defaults, to show what they would change.
 */
export async function processBatch(
  event: SQSEvent,
  handle: (record: SQSRecord, span: Span) => Promise<void>,
  options: BatchOptions & { fifoDefaults?: boolean } = {},
): Promise<SQSBatchResponse> {
  const { logger, tracer = noopTracer, spanName = 'record' } = options;
  const processor = new SqsFifoPartialProcessorAsync();
  const response = await processPartialResponse(
    event,
    (record: SQSRecord) =>
      inSpan(
        tracer,
        spanName,
        { messageId: record.messageId },
        spanOptionsFromSqs(record),
        (span) => handle(record, span),
      ).catch((err: unknown) => {
        logger?.error('record failed', { messageId: record.messageId, error: err as Error });
        throw err;
      }),
    processor,
    options.fifoDefaults ? {} : { skipGroupOnError: true, throwOnFullBatchFailure: false },
  );
  const failed = response.batchItemFailures.length;
  if (failed > 0) {
    emitCount(logger, {
      name: 'FailedRecords',
      value: failed,
      dimensions: { FunctionName: process.env.AWS_LAMBDA_FUNCTION_NAME ?? spanName },
    });
  }
  return response;
}
