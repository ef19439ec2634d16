import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { FrontDoor } from '../../app/front-door.js';
import { AgentKernelError } from '../../core/errors.js';
import type { Span } from '../../core/tracer.js';
import { parseMessage } from '../../transport/parse.js';
import { ApprovalMessageSchema } from '../../transport/protocol.js';
import { type AwsClients, clientsFor } from '../adapters/clients.js';
import { emitCount } from '../adapters/emf-count.js';
import { processBatch } from '../middleware/sqs-batch.js';
import type { Deployment } from '../wiring/deployment.js';
import { frontDoorCache, messageFrontDoorOf } from '../wiring/front-doors.js';
import type { MessageDeployment } from '../wiring/light-deployments.js';

/**
 * What routing a decision reads: the session (owner, approvers), the paused run (its agent), the
 * run record and idempotency. No Runtime: functions/approvals.ts builds it with `messagesFor`, so
 * its bundle holds neither the agents entry nor a framework (test/infra/approvals-bundle.test.ts).
 */
export type ApprovalsDeployment = Omit<MessageDeployment, 'agentNames'>;

/**
 * The approvals queue's consumer: each decision goes to the front door as a queued resume (the
 * session's owner, or a configured approver, decides). A refused one is logged and dropped:
 * retrying would refuse it again. Only an unexpected failure (enqueueing) is retried.
 * A full `Deployment` (in-process stacks, tests) is accepted too and read through the same view.
 */
export function createApprovalsHandler(
  deployment: () => Promise<ApprovalsDeployment | Deployment>,
  options: { clients?: AwsClients; logger?: Logger } = {},
) {
  const { logger } = options;
  let clients = options.clients;
  const doorOf = frontDoorCache((deployed: ApprovalsDeployment | Deployment) =>
    messageFrontDoorOf(approvalsView(deployed), () => {
      clients ??= clientsFor(deployed.config);
      return clients.sqs;
    }),
  );
  return async (event: SQSEvent) => {
    const deployed = await deployment();
    const door = doorOf(deployed);
    return processBatch(event, (record, span) => handle(door, record, span, logger), {
      logger,
      tracer: deployed.tracer,
      spanName: 'approval',
    });
  };
}

/** The stores a resume needs; a resume never names an agent, so no agent names either. */
function approvalsView(deployed: ApprovalsDeployment | Deployment): MessageDeployment {
  if (!('runtime' in deployed)) return { ...deployed, agentNames: undefined };
  const { runtime } = deployed;
  return {
    config: deployed.config,
    connections: deployed.connections,
    tracer: deployed.tracer,
    sessions: runtime.sessions,
    pausedRuns: { get: (s, r) => runtime.pausedRuns?.get(s, r) ?? Promise.resolve(undefined) },
    runs: deployed.runs,
    idempotency: deployed.idempotency,
    idKey: deployed.idKey,
    agentNames: undefined,
  };
}

async function handle(
  door: FrontDoor,
  record: SQSRecord,
  span: Span,
  logger?: Logger,
): Promise<void> {
  const parsed = parseMessage(ApprovalMessageSchema, record.body);
  if (!parsed.ok) {
    // `message` is the line's own key: the parse error's goes under `detail`.
    const { code, message: detail } = parsed.error;
    refused(logger, { messageId: record.messageId, reason: code, detail });
    return;
  }
  const approval = parsed.message;
  span.setAttributes({ sessionId: approval.sessionId, runId: approval.runId });
  try {
    const accepted = await door.submitResume({
      ...approval,
      requestId: approval.requestId ?? `approval-${record.messageId}`,
      channel: 'approvals',
    });
    logger?.info('resume job queued', { requestId: accepted.requestId, runId: accepted.runId });
  } catch (err) {
    if (!(err instanceof AgentKernelError)) throw err;
    refused(logger, {
      messageId: record.messageId,
      sessionId: approval.sessionId,
      runId: approval.runId,
      principal: approval.principal,
      reason: err.code,
    });
  }
}

/** A dropped decision: the warn line it always was, now an EMF count too (alarm ApprovalsRefused). */
function refused(logger: Logger | undefined, properties: Record<string, unknown>): void {
  emitCount(logger, { name: 'ApprovalsRefused', message: 'approval refused', properties });
}
