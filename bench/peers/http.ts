/** A hand-written HTTP API: queues a run, lists the agents, reads a session's turns. */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { agent } from './agent.js';
import { isRecord, TABLE, table } from './shared.js';

const QUEUE = process.env.RUN_QUEUE_URL ?? '';
let sqs: SQSClient | undefined;
const json = (statusCode: number, body: unknown) => ({ statusCode, body: JSON.stringify(body) });

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyResultV2> => {
  const [, , sessionId, what] = event.rawPath.split('/');
  if (event.rawPath === '/agents') return json(200, [{ name: agent.name }]);
  if (!sessionId) return json(404, { code: 'not-found' });
  if (event.requestContext.http.method === 'GET' && what === 'turns') {
    const got = await table().send(
      new GetCommand({ TableName: TABLE, Key: { pk: `SESSION#${sessionId}`, sk: 'HEAD' } }),
    );
    return json(200, got.Item?.items ?? []);
  }
  const body: unknown = JSON.parse(event.body ?? 'null');
  if (!isRecord(body) || typeof body.input !== 'string')
    return json(400, { code: 'invalid-request' });
  const runId = crypto.randomUUID();
  await table().send(
    new PutCommand({
      TableName: TABLE,
      Item: { pk: `RUN#${sessionId}`, sk: runId, status: 'queued' },
    }),
  );
  sqs ??= new SQSClient({});
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: QUEUE,
      MessageBody: JSON.stringify({ sessionId, runId, input: body.input }),
      MessageGroupId: sessionId,
      MessageDeduplicationId: runId,
    }),
  );
  return json(202, { sessionId, runId });
};
