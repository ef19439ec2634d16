/** A hand-written streaming function: one turn of the agent as server-sent events. */
import type { Writable } from 'node:stream';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AgentInputItem } from '@openai/agents';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { agent, agentRunner } from './agent.js';
import { isRecord, TABLE, table } from './shared.js';

type Streamify = (
  handler: (event: APIGatewayProxyEventV2, stream: Writable) => Promise<void>,
) => unknown;
const lambda = (globalThis as { awslambda?: { streamifyResponse?: Streamify } }).awslambda;

async function streamTurn(event: APIGatewayProxyEventV2, stream: Writable): Promise<void> {
  const body: unknown = JSON.parse(event.body ?? 'null');
  if (!isRecord(body) || typeof body.sessionId !== 'string' || typeof body.input !== 'string') {
    stream.end(`event: error\ndata: ${JSON.stringify({ code: 'invalid-request' })}\n\n`);
    return;
  }
  const key = { pk: `SESSION#${body.sessionId}`, sk: 'HEAD' };
  const session = await table().send(new GetCommand({ TableName: TABLE, Key: key }));
  const history = (session.Item?.items ?? []) as AgentInputItem[];
  const result = await (await agentRunner()).run(
    agent,
    [...history, { role: 'user', content: body.input }],
    {
      stream: true,
    },
  );
  for await (const streamed of result) stream.write(`data: ${JSON.stringify(streamed.type)}\n\n`);
  await table().send(new PutCommand({ TableName: TABLE, Item: { ...key, items: result.history } }));
  stream.end();
}

// Outside Lambda (the bench's import) there is no `awslambda.streamifyResponse`: the bare function.
export const handler = lambda?.streamifyResponse
  ? lambda.streamifyResponse(streamTurn)
  : streamTurn;
