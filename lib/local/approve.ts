/**
 * `npm run approve -- <queue-url> <sessionId> <runId> <callId> [approved|denied] [principal]`:
 * puts one decision on the local approvals queue (printed by `npm start`), as a back-office system
 * would on AWS. The principal defaults to `developer`, the owner behind the dev token.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { ApprovalMessageSchema } from '../transport/protocol.js';
import { localSqsClient } from './sqs.js';

export async function sendApproval(queueUrl: string, message: unknown): Promise<void> {
  const body = ApprovalMessageSchema.parse(message);
  const sqs = localSqsClient(new URL(queueUrl).origin);
  try {
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }),
    );
  } finally {
    sqs.destroy();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const [queueUrl, sessionId, runId, callId, status = 'approved', principal = 'developer'] =
    process.argv.slice(2);
  if (!queueUrl || !sessionId || !runId || !callId || !['approved', 'denied'].includes(status)) {
    console.error(
      'usage: npm run approve -- <approvals-queue-url> <sessionId> <runId> <callId> [approved|denied] [principal]',
    );
    process.exitCode = 2;
  } else {
    await sendApproval(queueUrl, {
      sessionId,
      runId,
      principal,
      decisions: [{ id: callId, status }],
    });
    console.log(`sent: ${status} ${callId} of run ${runId}`);
  }
}
