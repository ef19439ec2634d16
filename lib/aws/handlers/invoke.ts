import type { Logger } from '@aws-lambda-powertools/logger';
import type { Reply } from '../../core/requests.js';
import { checkMessage } from '../../transport/parse.js';
import { InvokePayloadSchema } from '../../transport/protocol.js';
import { handlerWith, invokeErrors } from '../middleware/handler-stack.js';
import { type ErrorBody, type Redacting, redactWith } from '../middleware/http-errors.js';
import type { Deployment } from '../wiring/deployment.js';
import { frontDoorCache, frontDoorOf } from '../wiring/front-doors.js';

export type InvokeResult = Reply | ErrorBody;

/**
 * Direct Lambda invoke: `{action: 'run' | 'resume', ...}` answered with the reply or the paused
 * run. IAM authenticated the caller, which acts for the payload's `principal` or, naming none,
 * for INVOKE_PRINCIPAL (unset: refused). A `requestId` makes the call idempotent.
 */
export function createInvokeHandler(
  deployment: () => Promise<Deployment>,
  logger?: Logger,
  options: Redacting = {},
) {
  const redact = redactWith(options);
  const doorOf = frontDoorCache((deployed: Deployment) => frontDoorOf(deployed, undefined, redact));
  return handlerWith(
    async (event: unknown): Promise<InvokeResult> => {
      const checked = checkMessage(InvokePayloadSchema, event);
      if (!checked.ok) return checked.error;
      const { principal: named, ...payload } = checked.message;
      const deployed = await deployment();
      const door = doorOf(deployed);
      const principal = named ?? deployed.config.INVOKE_PRINCIPAL;
      if (payload.action === 'run') {
        const { action: _, ...run } = payload;
        return door.runNow({ principal, ...run });
      }
      const { action: _, ...resume } = payload;
      return door.resumeNow({ principal, ...resume });
    },
    // A thrown error answers with the (checked) payload's requestId.
    invokeErrors<unknown, InvokeResult>({ logger, failure: 'invoke failed', redact }),
  );
}
