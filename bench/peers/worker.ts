/**
 * A hand-written worker: loads the session, streams a turn of the agent, sends its events in
 * batches to the events queue (or posts them straight to the requester), saves the session.
 */

import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AgentInputItem } from '@openai/agents';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { agent, agentRunner } from './agent.js';
import { isRecord, post, TABLE, table } from './shared.js';

const EVENTS = process.env.EVENTS_QUEUE_URL ?? '';
const RUNS = process.env.RUN_QUEUE_URL ?? '';
let sqs: SQSClient | undefined;

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: { itemIdentifier: string }[] = [];
  sqs ??= new SQSClient({});
  for (const record of event.Records) {
    try {
      const job: unknown = JSON.parse(record.body);
      if (!isRecord(job) || typeof job.sessionId !== 'string' || typeof job.input !== 'string')
        throw new Error('bad job');
      const key = { pk: `SESSION#${job.sessionId}`, sk: 'HEAD' };
      const session = await table().send(new GetCommand({ TableName: TABLE, Key: key }));
      const history = (session.Item?.items ?? []) as AgentInputItem[];
      const input: AgentInputItem[] = [...history, { role: 'user', content: job.input }];
      const result = await (await agentRunner()).run(agent, input, { stream: true });
      let batch: unknown[] = [];
      let seq = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const message = { sessionId: job.sessionId, runId: job.runId, seq: seq++, events: batch };
        batch = [];
        if (EVENTS) {
          await sqs?.send(
            new SendMessageBatchCommand({
              QueueUrl: EVENTS,
              Entries: [
                {
                  Id: '0',
                  MessageBody: JSON.stringify({ message }),
                  MessageGroupId: String(job.sessionId),
                },
              ],
            }),
          );
        } else if (typeof job.endpoint === 'string' && typeof job.connectionId === 'string') {
          await post(job.endpoint, job.connectionId, message);
        }
      };
      for await (const streamed of result) {
        batch.push(
          streamed.type === 'raw_model_stream_event' ? streamed.data : { type: streamed.type },
        );
        if (batch.length >= 32) await flush();
      }
      await flush();
      await table().send(
        new PutCommand({ TableName: TABLE, Item: { ...key, items: result.history } }),
      );
    } catch (error) {
      console.error(JSON.stringify({ level: 'ERROR', message: String(error) }));
      failures.push({ itemIdentifier: record.messageId });
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: RUNS,
          ReceiptHandle: record.receiptHandle,
          VisibilityTimeout: 2,
        }),
      );
    }
  }
  return { batchItemFailures: failures };
};
