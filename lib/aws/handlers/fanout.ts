import type { SQSEvent } from 'aws-lambda';
import { parseEventsQueueMessage } from '../../transport/events-queue-check.js';
import type { AwsClients } from '../adapters/clients.js';
import { managementFor } from '../adapters/management-api.js';
import { postToSession } from '../adapters/post-to-session.js';
import type { FunctionLogger } from '../middleware/json-logger.js';
import { processBatch } from '../middleware/sqs-batch.js';
import type { ConnectionsDeployment } from '../wiring/light-deployments.js';

const MAX_BODY_BYTES = 256 * 1024;

/**
 * The events queue's consumer: posts each batch to every connection subscribed to its session
 * (AG-UI subscribers get AG-UI events). Gone connections are deleted; the others still get it.
 */
export function createFanoutHandler(
  deployment: () => Promise<ConnectionsDeployment>,
  options: { clients?: Pick<AwsClients, 'management'>; logger?: FunctionLogger } = {},
) {
  const { logger } = options;
  let clients = options.clients;
  return async (event: SQSEvent) => {
    const { connections, config, tracer } = await deployment();
    clients ??= { management: managementFor(config) };
    const ready = clients;
    return processBatch(
      event,
      async (record, span) => {
        // By hand, as EventsQueueMessageSchema checks it: no zod in this function's bundle.
        const parsed = parseEventsQueueMessage(record.body, { maxBytes: MAX_BODY_BYTES });
        // Retrying cannot fix it; failing it moves it to the DLQ where it can be looked at.
        if (!parsed.ok) throw new Error(`bad events message: ${parsed.error.message}`);
        const { message, connectionId, owner } = parsed.message;
        span.setAttributes({ sessionId: message.sessionId, runId: message.runId });
        await postToSession(ready, connections, message, {
          ...(connectionId ? { requester: connectionId } : {}),
          ...(owner ? { owner } : {}),
          ...(logger ? { logger } : {}),
        });
      },
      { logger, tracer, spanName: 'fanout' },
    );
  };
}
