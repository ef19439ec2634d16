/** A hand-written fan-out: each events message posted to the session's connections. */
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { isRecord, post, TABLE, table } from './shared.js';

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    try {
      const body: unknown = JSON.parse(record.body);
      if (!isRecord(body) || !isRecord(body.message) || typeof body.message.sessionId !== 'string')
        throw new Error('bad events message');
      const { Items = [] } = await table().send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `SUBS#${body.message.sessionId}` },
        }),
      );
      for (const item of Items) {
        const sent = await post(item.endpoint, item.connectionId, body.message);
        if (!sent)
          await table().send(
            new DeleteCommand({ TableName: TABLE, Key: { pk: item.pk, sk: item.sk } }),
          );
      }
    } catch (error) {
      console.error(JSON.stringify({ level: 'ERROR', message: String(error) }));
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
