import type { Writable } from 'node:stream';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { NotFound } from '../app/errors.js';
import { FrontDoor } from '../app/front-door.js';
import type { TurnRunner } from '../app/ports.js';
import { checkId } from '../app/validation.js';
import { AgentKernelError, InvalidRequest } from '../core/errors.js';
import type { StreamEvent } from '../core/events.js';
import type { Reply } from '../core/requests.js';
import { EventBatcher } from '../transport/batcher.js';
import { parseMessage } from '../transport/parse.js';
import { HttpRunBodySchema } from '../transport/protocol.js';
import { agUiRun } from './ag-ui-http.js';
import { createAuthorizerHandler } from './authorizer.js';
import { errorBody, errorResponse, type Redacting, redactWith } from './errors-http.js';
import type { HttpEvent } from './http.js';
import { withTracersFlushed } from './logging.js';
import { servePlayground } from './playground-http.js';
import { httpResponseStream, quietWrite, sseFrame } from './response-stream.js';
import type { Deployment } from './runtime.js';

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
  // Its run's spans are flushed as every other function's are: the client has its answer first.
  return (event: HttpEvent, stream: Writable, context?: unknown): Promise<void> =>
    withTracersFlushed(context as Partial<Context> | undefined, () => streamRequest(event, stream));

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

/** The principal the authorizer would pass on, or undefined (the front door refuses it). */
async function principalOf(authorize: Authorize, event: HttpEvent): Promise<unknown> {
  const request = {
    type: 'REQUEST',
    methodArn: 'function-url',
    headers: event.headers ?? {},
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
  if (method === 'POST' && path === 'ag-ui') {
    const request = { body: bodyOf(event), principal, ...idempotencyKey(event) };
    return agUiRun(deployed, request, out, redact);
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

/** The deployment's front door (as frontDoorOf builds it), its turns run by `turns`. */
export function frontDoorWith(
  deployed: Deployment,
  turns: TurnRunner,
  redact: (text: string) => string,
): FrontDoor {
  const { runtime, config } = deployed;
  return new FrontDoor({
    sessions: runtime.sessions,
    pausedRuns: { get: (s, r) => runtime.pausedRuns?.get(s, r) ?? Promise.resolve(undefined) },
    runs: deployed.runs,
    idempotency: deployed.idempotency,
    agents: {
      has: (name) => runtime.agents.some((agent) => agent.name === name),
      cards: () => runtime.agents.map((agent) => agent.card()),
    },
    turns,
    redact,
    // The Function URL has no API Gateway throttle: the principal's quotas apply here too.
    ...(deployed.fairUse ? { fairUse: deployed.fairUse } : {}),
    ...(config.APPROVER_PRINCIPALS ? { approvers: config.APPROVER_PRINCIPALS } : {}),
  });
}

/** Where a turn's events go: pushed in order, closed once the turn ended. */
export interface EventSink {
  push(event: StreamEvent): Promise<void>;
  close(): Promise<void>;
}

/**
 * The runtime's turns as the front door calls them, each turn's events into a sink of its own
 * (`open`): the native batcher, or AG-UI's encoder.
 */
export function streamingTurns(
  deployed: Deployment,
  open: (sessionId: string, runId: string) => EventSink,
): TurnRunner {
  const { runtime } = deployed;
  return {
    run: (agent, sessionId, input, options) =>
      drain(runtime.stream(agent, sessionId, input, options), open(sessionId, options.runId)),
    resume: (sessionId, runId, decisions, options) =>
      drain(runtime.resumeStream(sessionId, runId, decisions, options), open(sessionId, runId)),
    clearSession: (sessionId, options) => runtime.clearSession(sessionId, options),
  };
}

/** `events` messages (seq from 0, as a new run's first on the WebSocket) as SSE frames. */
function nativeSink(deployed: Deployment, out: SseResponse) {
  return (sessionId: string, runId: string): EventSink =>
    new EventBatcher({
      sessionId,
      runId,
      firstSeq: 0,
      maxDelayMs: deployed.config.EVENT_BATCH_MAX_DELAY_MS,
      sink: async (message) => out.frame(sseFrame('events', message, message.seq)),
    });
}

/** Streams a turn's events and answers as `Runtime.run` would: its reply, or its error. */
async function drain(events: AsyncIterable<StreamEvent>, batcher: EventSink): Promise<Reply> {
  let agent = '';
  let text = '';
  let reply: Reply | undefined;
  let failure: AgentKernelError | undefined;
  for await (const event of events) {
    if (event.type === 'run-started') agent = event.agent;
    if (event.type === 'text-delta') text += event.delta;
    if (event.type === 'run-finished') reply = event.reply;
    if (event.type === 'run-paused') {
      const { runId, sessionId, interruptions } = event;
      reply = {
        status: 'paused',
        runId,
        sessionId,
        agent,
        interruptions,
        ...(text ? { text } : {}),
      };
    }
    if (event.type === 'run-error') failure = new AgentKernelError(event.code, event.message);
    await batcher.push(event);
  }
  await batcher.close();
  if (failure) throw failure;
  if (!reply) throw new AgentKernelError('internal-error', 'The run ended early.');
  return reply;
}

/** The response: its prelude waits for the first event, so an early refusal is an HTTP error. */
export class SseResponse {
  #stream: Writable;
  #body: Writable | undefined;
  constructor(stream: Writable) {
    this.#stream = stream;
  }

  get started(): boolean {
    return this.#body !== undefined;
  }

  /** Writes one encoded frame, the 200 prelude first. */
  frame(frame: string): void {
    this.#body ??= httpResponseStream(this.#stream, {
      statusCode: 200,
      headers: {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      },
    });
    quietWrite(this.#body, frame);
  }

  error(response: { statusCode: number; headers: Record<string, string>; body: string }): void {
    const { statusCode, headers, body } = response;
    this.#body = httpResponseStream(this.#stream, { statusCode, headers });
    quietWrite(this.#body, body);
  }

  end(): void {
    const body = this.#body ?? this.#stream;
    if (!body.destroyed && !body.writableEnded) body.end();
  }
}

function acceptsEventStream(event: HttpEvent): boolean {
  return (event.headers?.accept ?? '').toLowerCase().includes('text/event-stream');
}

function idempotencyKey(event: HttpEvent): { requestId?: string } {
  const key = event.headers?.['idempotency-key'];
  return key === undefined ? {} : { requestId: checkId('Idempotency-Key', key) };
}

function bodyOf(event: HttpEvent): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}
