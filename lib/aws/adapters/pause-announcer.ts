import type { StreamEvent } from '../../core/events.js';
import type { ApprovalRequest } from '../../transport/protocol.js';
import type { Deployment } from '../wiring/deployment.js';
import type { AwsClients } from './clients.js';
import { queueUrl, sendJson } from './sqs-queues.js';

/** Tells whoever decides (back office, chat bot) that the run waits, if the queue exists. */
export async function announcePause(
  deployed: Deployment,
  clients: AwsClients,
  sessionId: string,
  runId: string,
  agent: string,
  outcome: Extract<StreamEvent, { type: 'run-paused' }>,
): Promise<void> {
  if (!deployed.config.APPROVAL_REQUESTS_QUEUE_URL) return;
  const stored = await deployed.runtime.pausedRuns?.get(sessionId, runId);
  const request: ApprovalRequest = {
    sessionId,
    runId,
    agent,
    interruptions: outcome.interruptions,
    expiresAt: stored?.expiresAt ?? Date.now(),
  };
  await sendJson(
    clients.sqs,
    queueUrl(deployed.config, 'APPROVAL_REQUESTS_QUEUE_URL'),
    request,
    deployed.config.APPROVAL_REQUESTS_QUEUE_URL.endsWith('.fifo')
      ? // One announcement per pause, however often the step is retried.
        {
          groupId: sessionId,
          deduplicationId: `${runId}.paused.${stored?.createdAt ?? Date.now()}`,
        }
      : undefined,
  );
}
