import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/**
 * Processes a batch one record at a time and reports the failed ones (`batchItemFailures`),
 * so SQS retries only those. On a FIFO queue a failed record also fails the later records of
 * its group: handling them now would break the group's order.
 */
export async function processBatch(
  event: SQSEvent,
  handle: (record: SQSRecord) => Promise<void>,
  logger?: Logger,
): Promise<SQSBatchResponse> {
  const failedGroups = new Set<string>();
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const group = record.attributes.MessageGroupId;
    if (group !== undefined && failedGroups.has(group)) {
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    try {
      await handle(record);
    } catch (err) {
      logger?.error('record failed', { messageId: record.messageId, error: err as Error });
      if (group !== undefined) failedGroups.add(group);
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
