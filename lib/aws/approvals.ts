import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { Span } from '../core/tracer.js';
import { runJobFifoKeys } from '../transport/fifo.js';
import { parseMessage } from '../transport/parse.js';
import { ApprovalMessageSchema, type RunJob } from '../transport/protocol.js';
import { processBatch } from './batch.js';
import { type AwsClients, clientsFor } from './clients.js';
import { queueUrl, sendJson } from './queues.js';
import type { Deployment } from './runtime.js';

/**
 * The approvals queue's consumer: a decision from any system becomes a `resume` job once it is
 * valid and its principal owns the session. A refused one is logged and dropped: retrying
 * would refuse it again. Only a failure to enqueue is retried.
 */
export function createApprovalsHandler(
  deployment: () => Promise<Deployment>,
  options: { clients?: AwsClients; logger?: Logger } = {},
) {
  const { logger } = options;
  let clients = options.clients;
  return async (event: SQSEvent) => {
    const deployed = await deployment();
    clients ??= clientsFor(deployed.config);
    const ready = clients;
    return processBatch(event, (record, span) => handle(deployed, ready, record, span, logger), {
      logger,
      tracer: deployed.tracer,
      spanName: 'approval',
    });
  };
}

async function handle(
  deployed: Deployment,
  clients: AwsClients,
  record: SQSRecord,
  span: Span,
  logger?: Logger,
): Promise<void> {
  const parsed = parseMessage(ApprovalMessageSchema, record.body);
  if (!parsed.ok) {
    logger?.warn('approval refused', { messageId: record.messageId, ...parsed.error });
    return;
  }
  const approval = parsed.message;
  span.setAttributes({ sessionId: approval.sessionId, runId: approval.runId });
  const refuse = (reason: string) =>
    logger?.warn('approval refused', {
      messageId: record.messageId,
      sessionId: approval.sessionId,
      runId: approval.runId,
      principal: approval.principal,
      reason,
    });
  const session = await deployed.runtime.sessions.load(approval.sessionId);
  if (!session) return refuse('session-not-found');
  // Only the session's owner may decide; a session without an owner has nobody to decide.
  if (session.data.owner !== approval.principal) return refuse('session-forbidden');
  const paused = await deployed.runtime.pausedRuns?.get(approval.sessionId, approval.runId);
  if (!paused) return refuse('paused-run-not-found');
  const job: RunJob = {
    kind: 'resume',
    requestId: approval.requestId ?? `approval-${record.messageId}`,
    principal: approval.principal,
    sessionId: approval.sessionId,
    runId: approval.runId,
    agent: paused.agent,
    decisions: approval.decisions,
    enqueuedAt: Date.now(),
  };
  await sendJson(clients.sqs, queueUrl(deployed.config, 'RUN_QUEUE_URL'), job, runJobFifoKeys(job));
  logger?.info('resume job queued', { requestId: job.requestId, runId: job.runId });
}
