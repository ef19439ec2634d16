/** A hand-written WebSocket message handler: validates a run, records it, queues the job. */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { isRecord, post, TABLE, table } from './shared.js';

const QUEUE = process.env.RUN_QUEUE_URL ?? '';
if (!QUEUE) throw new Error('RUN_QUEUE_URL is required');
let sqs: SQSClient | undefined;

export const handler = async (
  event: APIGatewayProxyWebsocketEventV2,
): Promise<APIGatewayProxyResult> => {
  const { connectionId, domainName, stage } = event.requestContext;
  const endpoint = `https://${domainName}/${stage}`;
  const message: unknown = JSON.parse(event.body ?? 'null');
  if (
    !isRecord(message) ||
    typeof message.type !== 'string' ||
    typeof message.sessionId !== 'string'
  )
    return reply(endpoint, connectionId, { type: 'error', code: 'invalid-request' });
  const { sessionId } = message;
  if (message.type === 'subscribe') {
    await table().send(
      new PutCommand({ TableName: TABLE, Item: { pk: `SUBS#${sessionId}`, sk: connectionId } }),
    );
    const { Items = [] } = await table().send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `EVENTS#${sessionId}` },
      }),
    );
    for (const item of Items) await post(endpoint, connectionId, item.message);
    return { statusCode: 200, body: '' };
  }
  const session = await table().send(
    new GetCommand({ TableName: TABLE, Key: { pk: `SESSION#${sessionId}`, sk: 'HEAD' } }),
  );
  const runId = crypto.randomUUID();
  await table().send(
    new PutCommand({
      TableName: TABLE,
      Item: { pk: `RUN#${sessionId}`, sk: runId, status: 'queued' },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  sqs ??= new SQSClient({});
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: QUEUE,
      MessageBody: JSON.stringify({ ...message, runId, connectionId, owner: session.Item?.owner }),
      MessageGroupId: sessionId,
      MessageDeduplicationId: runId,
    }),
  );
  return reply(endpoint, connectionId, { type: 'accepted', sessionId, runId });
};

async function reply(endpoint: string, connectionId: string, data: unknown) {
  await post(endpoint, connectionId, data);
  return { statusCode: 200, body: '' };
}
