import type { Writable } from 'node:stream';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { NotFound, Unauthenticated } from '../../app/errors.js';
import { continuingSeq, storedFirst } from '../../app/jobs/stored-events.js';
import { RunEvents } from '../../app/run-events.js';
import { AgentKernelError, InvalidRequest } from '../../core/errors.js';
import { EventBatcher } from '../../transport/batcher.js';
import { parseMessage } from '../../transport/parse.js';
import type { EventsMessage } from '../../transport/protocol.js';
import { HttpRunBodySchema } from '../../transport/protocol.js';
import { errorBody, errorResponse, type Redacting, redactWith } from '../middleware/http-errors.js';
import { sseFrame } from '../middleware/response-stream.js';
import type { Deployment } from '../wiring/deployment.js';
import { createAuthorizerHandler } from './authorizer.js';
import type { HttpEvent } from './http-api.js';
import { bodyOf, idempotencyKey } from './http-body.js';
import { a2aRoute } from './stream-a2a.js';
import { agUiRun } from './stream-ag-ui.js';
import { mcpRoute } from './stream-mcp.js';
import { servePlayground } from './stream-playground.js';
import {
  type EventSink,
  frontDoorWith,
  type SinkOwner,
  SseResponse,
  streamingTurns,
} from './stream-turns.js';

type Authorize = ReturnType<typeof createAuthorizerHandler>;

/**
 * The streaming front (a Function URL with RESPONSE_STREAM): `POST /runs` with `Accept:
 * text/event-stream` runs the turn in this invocation through the front door (same auth,
 * ownership, idempotency and run records as the HTTP API) and streams the run's `events`
 * messages as SSE, batched and numbered as the WebSocket sends them; `POST /ag-ui` does the same
 * for an AG-UI `RunAgentInput` with AG-UI events (ag-ui-http.ts); `GET /` is the playground page
 * when the deployment serves it (playground-http.ts). A Function URL has no
 * authorizer: the token is checked here by the very authorizer the APIs use. A client that goes
 * away does not stop the run: it finishes and is stored (read it with `GET /sessions/...`).
 */
export function createStreamHandler(
  deployment: () => Promise<Deployment>,
  logger?: Logger,
  options: Redacting = {},
) {
  const redact = redactWith(options);
  const authorizers = new WeakMap<Deployment, Authorize>();
  // Its run's spans are flushed by withStreamLogging (functions/stream.ts), as every function's are.
  return (event: HttpEvent, stream: Writable): Promise<void> => streamRequest(event, stream);

  async function streamRequest(event: HttpEvent, stream: Writable): Promise<void> {
    if (await servePlayground(event, stream)) return;
    const out = new SseResponse(stream);
    try {
      const deployed = await deployment();
      let authorize = authorizers.get(deployed);
      if (!authorize) {
        authorize = createAuthorizerHandler(deployed.config, logger);
        authorizers.set(deployed, authorize);
      }
      const principal = await principalOf(authorize, event);
      await route(deployed, event, principal, out, redact);
    } catch (err) {
      if (!(err instanceof AgentKernelError)) logger?.error('stream request failed', err as Error);
      // Before the first event: an HTTP error. After: the run-error event already went out.
      if (!out.started) out.error(errorResponse(errorBody(err, undefined, redact)));
    } finally {
      out.end();
    }
  }
}

/**
 * The principal the authorizer would pass on, or undefined (the front door refuses it). The
 * token rule is the authorizer's: the header only here (`?token=` is the WebSocket
 * handshake's), so a URL token alone is refused with a hint rather than a bare 401.
 */
async function principalOf(authorize: Authorize, event: HttpEvent): Promise<unknown> {
  const headers = event.headers ?? {};
  if (!headers.authorization && event.queryStringParameters?.token) {
    throw new Unauthenticated(
      'A token in the URL (?token=) is accepted only on the WebSocket handshake: send `Authorization: Bearer <jwt>`.',
    );
  }
  const request = {
    type: 'REQUEST',
    methodArn: 'function-url',
    headers,
    queryStringParameters: event.queryStringParameters ?? {},
  } as unknown as APIGatewayRequestAuthorizerEvent;
  const result = await authorize(request);
  const allowed = result.policyDocument.Statement.some(
    (s) => 'Effect' in s && s.Effect === 'Allow',
  );
  return allowed ? result.context?.principal : undefined;
}

async function route(
  deployed: Deployment,
  event: HttpEvent,
  principal: unknown,
  out: SseResponse,
  redact: (text: string) => string,
): Promise<void> {
  const method = event.requestContext.http.method;
  const path = event.rawPath.split('/').filter(Boolean).join('/');
  if (path === 'mcp') return mcpRoute(deployed, event, principal, out, redact);
  const parts = path.split('/');
  if (parts[0] === 'a2a') return a2aRoute(deployed, event, principal, out, redact, parts);
  if (method === 'POST' && path === 'ag-ui') {
    const request = { body: bodyOf(event), principal, ...idempotencyKey(event) };
    return agUiRun(deployed, request, out, redact);
  }
  if (method === 'GET' && parts.length === 5 && parts[0] === 'sessions' && parts[4] === 'events') {
    if (!acceptsEventStream(event)) {
      throw new InvalidRequest('This endpoint streams: send `Accept: text/event-stream`.');
    }
    return followRun(deployed, event, principal, out, parts);
  }
  if (method !== 'POST' || path !== 'runs') {
    throw new NotFound(`Route ${method} ${event.rawPath.slice(0, 200)}`);
  }
  if (!acceptsEventStream(event)) {
    throw new InvalidRequest('This endpoint streams: send `Accept: text/event-stream`.');
  }
  const body = parseMessage(HttpRunBodySchema, bodyOf(event));
  if (!body.ok) throw new AgentKernelError(body.error.code, body.error.message);
  const { agent, sessionId, input } = body.message;
  // One front door per request: its turns stream into this response.
  const turns = streamingTurns(deployed, nativeSink(deployed, out));
  const door = frontDoorWith(deployed, turns, redact);
  const reply = await door.runNow({
    principal,
    ...idempotencyKey(event),
    agent,
    ...(sessionId ? { sessionId } : {}),
    input,
  });
  // A repeated Idempotency-Key runs nothing: the first request's reply, as one frame.
  if (!out.started) out.frame(sseFrame('reply', reply));
}

/** Below a Lambda's 15 minutes: past it the client reconnects from its last seq. */
const FOLLOW_MS = 14 * 60_000;

/**
 * SSE reconnect: `GET /sessions/{id}/runs/{runId}/events` with `Last-Event-ID` (or
 * `?lastEventId=` for clients that cannot set it): the run's stored messages after that seq, then
 * the new ones as they are stored, ending with the terminal event's message.
 */
async function followRun(
  deployed: Deployment,
  event: HttpEvent,
  principal: unknown,
  out: SseResponse,
  parts: string[],
): Promise<void> {
  const [, sessionId = '', , runId = ''] = parts.map(decodeURIComponent);
  const after = event.headers?.['last-event-id'] ?? event.queryStringParameters?.lastEventId;
  const { runtime, runs, events } = deployed;
  const reader = new RunEvents({ sessions: runtime.sessions, runs, events });
  const gone = new AbortController();
  const messages = reader.follow(principal, sessionId, runId, {
    after,
    until: Date.now() + FOLLOW_MS,
    signal: gone.signal,
  });
  out.onClose(() => gone.abort());
  for await (const message of messages) out.frame(sseFrame('events', message, message.seq));
  // Nothing after the seq yet and the run still going at the deadline: an empty 200 stream.
  if (!out.started) out.frame(': caught up\n\n');
}

/**
 * `events` messages as SSE frames: seq from 0 for a new run (as its first on the WebSocket), a
 * resume after the run's stored messages. Each is stored before it is written (stored events).
 */
function nativeSink(deployed: Deployment, out: SseResponse) {
  return async (sessionId: string, runId: string, who: SinkOwner): Promise<EventSink> => {
    const { events } = deployed;
    const start = who.resume
      ? await continuingSeq(events, { sessionId, runId }, undefined, true, 0)
      : { firstSeq: 0 };
    const binding = { owner: who.owner, incarnation: who.incarnation };
    const frames = {
      mode: 'memory' as const,
      deliver: async (m: EventsMessage) => out.frame(sseFrame('events', m, m.seq)),
    };
    const delivery = storedFirst(frames, events, binding);
    return new EventBatcher({
      sessionId,
      runId,
      firstSeq: start.firstSeq,
      maxDelayMs: deployed.config.EVENT_BATCH_MAX_DELAY_MS,
      sink: (message) => delivery.deliver(message),
    });
  };
}

function acceptsEventStream(event: HttpEvent): boolean {
  return (event.headers?.accept ?? '').toLowerCase().includes('text/event-stream');
}
