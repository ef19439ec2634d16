import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import { AgentKernelError } from '../core/errors.js';
import type { Reply } from '../core/requests.js';
import { checkMessage } from '../transport/parse.js';
import { type InvokePayload, InvokePayloadSchema } from '../transport/protocol.js';
import { type ErrorBody, errorBody } from './errors-http.js';
import type { Deployment } from './runtime.js';

export type InvokeResult = Reply | ErrorBody;

/**
 * Direct Lambda invoke: `{action: 'run' | 'resume', ...}` answered with the reply or the paused
 * run. IAM authenticated the caller. A `requestId` makes the call idempotent: a retried invoke
 * gets the first answer instead of a second run.
 */
export function createInvokeHandler(deployment: () => Promise<Deployment>, logger?: Logger) {
  return async (event: unknown): Promise<InvokeResult> => {
    const checked = checkMessage(InvokePayloadSchema, event);
    if (!checked.ok) return checked.error;
    const payload = checked.message;
    const { runtime, idempotency } = await deployment();
    const key = payload.requestId ? `invoke:${payload.requestId}` : undefined;
    let token: string | undefined;
    try {
      if (key) {
        const claim = await idempotency.claim(key, { fingerprint: fingerprint(payload) });
        if (claim.outcome === 'completed') return claim.result as InvokeResult;
        if (claim.outcome === 'in-progress') {
          throw new AgentKernelError(
            'request-in-progress',
            `Request "${payload.requestId}" is still running.`,
          );
        }
        token = claim.token;
      }
      const reply = await execute(runtime, payload);
      if (key && token) await idempotency.complete(key, token, reply);
      return reply;
    } catch (err) {
      if (key && token) await idempotency.release(key, token).catch(() => undefined);
      if (!(err instanceof AgentKernelError)) logger?.error('invoke failed', err as Error);
      return errorBody(err, payload.requestId);
    }
  };
}

async function execute(runtime: Deployment['runtime'], payload: InvokePayload): Promise<Reply> {
  const principal = payload.principal;
  if (payload.action === 'run') {
    const sessionId = payload.sessionId ?? randomUUID();
    return runtime.run(payload.agent, sessionId, payload.input, { principal });
  }
  return runtime.resume(payload.sessionId, payload.runId, payload.decisions, { principal });
}

/** The same requestId with another payload is refused by the idempotency store. */
function fingerprint(payload: InvokePayload): string {
  return createHash('sha256').update(JSON.stringify(payload)).digest('hex');
}
