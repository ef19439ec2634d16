import { retryAfterOf } from '../../app/fair-use.js';
import type { FrontDoor } from '../../app/front-door.js';
import { RunEvents } from '../../app/run-events.js';
import { AgentKernelError, toErrorInfo } from '../../core/errors.js';
import { activeSpan } from '../../core/tracer.js';
import { type AgUiEventsMessage, toAgUiMessage } from '../../transport/ag-ui.js';
import { parseInbound } from '../../transport/parse.js';
import type { ClientMessage, ServerMessage, SubscribeMessage } from '../../transport/protocol.js';
import { type AwsClients, clientsFor } from '../adapters/clients.js';
import { postTo } from '../adapters/post-to-session.js';
import { type Redacting, redactWith } from '../middleware/http-errors.js';
import type { FunctionLogger } from '../middleware/json-logger.js';
import { frontDoorCache, messageFrontDoorOf } from '../wiring/front-doors.js';
import type { MessageDeployment } from '../wiring/light-deployments.js';
import {
  endpointOf,
  ok,
  principalOf,
  type WebSocketEvent,
  type WebSocketResult,
} from './ws-connection.js';

/**
 * The `$default` route: parse the frame, hand it to the front door with the connection's
 * principal, post the answer (`accepted` or `error`) back. The front door decides who may do
 * what; nothing is stored or queued for a refused message, and the connection stays open.
 */
export function createMessageHandler(
  deployment: () => Promise<MessageDeployment>,
  options: { clients?: AwsClients; logger?: FunctionLogger } & Redacting = {},
) {
  const { logger } = options;
  const redact = redactWith(options);
  let clients = options.clients;
  const doorOf = frontDoorCache((deployed: MessageDeployment) =>
    messageFrontDoorOf(
      deployed,
      () => {
        clients ??= clientsFor(deployed.config);
        return clients.sqs;
      },
      redact,
    ),
  );
  return async (event: WebSocketEvent): Promise<WebSocketResult> => {
    const deployed = await deployment();
    clients ??= clientsFor(deployed.config);
    const ready = clients;
    const connectionId = event.requestContext.connectionId;
    const target = {
      connectionId,
      endpoint: endpointOf(event, deployed.config.WEBSOCKET_ENDPOINT),
    };
    const reply = (message: ServerMessage | AgUiEventsMessage) =>
      postTo(ready, deployed.connections, target, message);
    // A binary frame arrives as base64: its bytes must be UTF-8 (the gate says so, typed).
    const raw = event.isBase64Encoded
      ? Buffer.from(event.body ?? '', 'base64')
      : (event.body ?? '');
    const parsed = parseInbound(raw);
    if (!parsed.ok) {
      await reply(parsed.error);
      return ok;
    }
    const message = parsed.message;
    const door = doorOf(deployed);
    try {
      const answer =
        message.action === 'subscribe' && message.runId !== undefined
          ? await replayRun(deployed, door, message, principalOf(event), connectionId, reply)
          : await dispatch(door, message, principalOf(event), connectionId);
      if (answer) {
        logger?.info('job queued', { action: message.action });
        await reply(answer);
      }
    } catch (err) {
      if (!(err instanceof AgentKernelError)) logger?.error('message failed', err as Error);
      const info =
        err instanceof AgentKernelError
          ? toErrorInfo(err)
          : { code: 'internal-error', message: 'An unexpected error occurred; try again.' };
      await reply({
        type: 'error',
        ...(message.requestId ? { requestId: message.requestId } : {}),
        ...info,
        message: redact(info.message),
        ...retryAfterOf(err),
      });
    }
    return ok;
  };
}

async function dispatch(
  door: FrontDoor,
  message: ClientMessage,
  principal: string | undefined,
  connectionId: string,
): Promise<ServerMessage | undefined> {
  switch (message.action) {
    case 'run': {
      const { requestId, agent, sessionId, input } = message;
      const accepted = await door.submitRun({
        principal,
        requestId,
        agent,
        ...(sessionId ? { sessionId } : {}),
        input,
        connectionId,
      });
      traced(accepted, agent);
      return { type: 'accepted', ...accepted };
    }
    case 'resume': {
      const { requestId, sessionId, runId, decisions } = message;
      const accepted = await door.submitResume({
        principal,
        requestId,
        sessionId,
        runId,
        decisions,
        connectionId,
      });
      traced(accepted);
      return { type: 'accepted', ...accepted };
    }
    case 'subscribe':
      await door.subscribe(principal, connectionId, message.sessionId, message.format);
      return undefined;
    case 'unsubscribe':
      await door.unsubscribe(principal, connectionId, message.sessionId);
      return undefined;
    case 'clear': {
      const { requestId, sessionId } = message;
      return { type: 'accepted', ...(await door.submitClear({ principal, requestId, sessionId })) };
    }
  }
}

/**
 * `subscribe` with a runId (a reconnect): the connection is subscribed to the session, then the
 * run's stored messages after `afterSeq` are posted to it (RunEvents.replay); the live ones come
 * from fan-out as to any subscriber. The client orders by seq and drops a seq it has.
 */
async function replayRun(
  deployed: MessageDeployment,
  door: FrontDoor,
  message: SubscribeMessage,
  principal: string | undefined,
  connectionId: string,
  reply: (message: ServerMessage | AgUiEventsMessage) => Promise<unknown>,
): Promise<undefined> {
  const { sessionId, runId = '', afterSeq, format } = message;
  if (!deployed.events) throw new AgentKernelError('internal-error', 'No stored events here.');
  const reader = new RunEvents({
    sessions: deployed.sessions,
    runs: deployed.runs,
    events: deployed.events,
  });
  const stored = reader.replay(principal, sessionId, runId, {
    after: afterSeq,
    live: () => door.subscribe(principal, connectionId, sessionId, format),
  });
  for await (const events of stored) {
    await reply(format === 'ag-ui' ? toAgUiMessage(events) : events);
  }
  return undefined;
}

/** The job carries this span's trace header: the worker's and fan-out's spans join this trace. */
function traced(ids: { requestId: string; sessionId: string; runId: string }, agent?: string) {
  activeSpan()?.setAttributes({ ...ids, ...(agent ? { agent } : {}) });
}
