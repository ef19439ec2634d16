import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { listApprovals } from '../../app/approvals-inbox.js';
import { NotFound } from '../../app/errors.js';
import type { FrontDoor } from '../../app/front-door.js';
import { RunEvents } from '../../app/run-events.js';
import { listSessions } from '../../app/session-list.js';
import { listTurns } from '../../app/session-turns.js';
import { InvalidRequest } from '../../core/errors.js';
import { parseMessage } from '../../transport/parse.js';
import { HttpDecisionsBodySchema, HttpRunBodySchema } from '../../transport/protocol.js';
import { clientsFor } from '../adapters/clients.js';
import { handlerWith, httpErrors } from '../middleware/handler-stack.js';
import { type Redacting, redactWith, statusOf } from '../middleware/http-errors.js';
import type { Deployment } from '../wiring/deployment.js';
import { frontDoorCache, frontDoorOf } from '../wiring/front-doors.js';
import { bodyOf, idempotencyKey } from './http-body.js';

/**
 * The authorizers an HTTP API v2 event can carry: the JWT authorizer's claims, or the Lambda
 * authorizer's returned `context` under `lambda` (never its principalId).
 */
export type HttpEvent = APIGatewayProxyEventV2 & {
  requestContext: {
    authorizer?: { jwt?: { claims?: Record<string, unknown> }; lambda?: Record<string, unknown> };
  };
};
type Result = Exclude<APIGatewayProxyResultV2, string>;

/** The principal the API's authorizer established; the front door refuses a missing one. */
export function httpPrincipalOf(event: HttpEvent): unknown {
  const authorizer = event.requestContext.authorizer;
  return authorizer?.jwt?.claims?.sub ?? authorizer?.lambda?.principal;
}

/**
 * The HTTP API: `POST /runs`, `GET /sessions/{id}`, `GET /sessions/{id}/runs/{runId}`,
 * `POST /sessions/{id}/runs/{runId}/decisions` (the owner, or a configured approver for them),
 * `GET /approvals` (the paused runs the caller may decide), `GET /sessions` (the caller's own),
 * `GET /sessions/{id}/turns`, `GET /agents`, `GET /usage` (the caller's own
 * fair-use counters and tokens per day), `GET /health`. Parse → front door
 * → JSON; every error is a JSON body with a code. Sync runs end inside API Gateway's 29 s.
 */
export function createHttpHandler(
  deployment: () => Promise<Deployment>,
  logger?: Logger,
  options: { sqs?: SQSClient } & Redacting = {},
) {
  let sqs = options.sqs;
  const redact = redactWith(options);
  // The SQS client is made on the first async run only: sync-only deployments never need it.
  const doorOf = frontDoorCache((deployed: Deployment) =>
    frontDoorOf(
      deployed,
      () => {
        sqs ??= clientsFor(deployed.config).sqs;
        return sqs;
      },
      redact,
    ),
  );
  return handlerWith(
    async (event: HttpEvent): Promise<Result> => {
      const deployed = await deployment();
      return route(doorOf(deployed), deployed, event);
    },
    httpErrors<HttpEvent>({ logger, failure: 'http request failed', redact }),
  );
}

/** `GET …/runs/{runId}/events?after=N&limit=M`: stored messages after seq N, for polling clients. */
function eventsPage(
  deployed: Deployment,
  event: HttpEvent,
  principal: unknown,
  sessionId: string,
  runId: string,
) {
  const query = event.queryStringParameters ?? {};
  const { runs, events, runtime } = deployed;
  const reader = new RunEvents({ sessions: runtime.sessions, runs, events });
  return reader.page(principal, sessionId, runId, { after: query.after, limit: query.limit });
}

async function route(door: FrontDoor, deployed: Deployment, event: HttpEvent): Promise<Result> {
  const method = event.requestContext.http.method;
  const parts = pathParts(event.rawPath);
  const path = parts.join('/');
  const principal = httpPrincipalOf(event);
  if (method === 'GET' && path === 'health') return json(200, { status: 'ok' });
  if (method === 'GET' && path === 'agents') return json(200, door.listAgents(principal));
  if (method === 'GET' && path === 'usage') return json(200, await door.usage(principal));
  if (method === 'POST' && path === 'runs') return postRun(door, deployed, event, principal);
  if (method === 'GET' && path === 'sessions') {
    return json(200, await listSessions(sessionsOf(door, deployed), principal, query(event)));
  }
  if (method === 'GET' && path === 'approvals') {
    return json(200, await listApprovals(inboxOf(door, deployed), principal, query(event)));
  }
  const [root, sessionId, runs, runId, action] = parts;
  if (root === 'sessions' && sessionId) {
    if (method === 'GET' && parts.length === 2) {
      return json(200, await door.readSession(principal, sessionId));
    }
    if (method === 'GET' && runs === 'turns' && parts.length === 3) {
      const deps = { policy: door.policy, runs: deployed.runs };
      return json(200, await listTurns(deps, principal, sessionId, query(event)));
    }
    if (method === 'DELETE' && parts.length === 2) {
      return json(200, await door.clearSession(principal, sessionId));
    }
    if (runs === 'runs' && runId && method === 'GET' && parts.length === 4) {
      return json(200, await door.readRun(principal, sessionId, runId));
    }
    if (runs === 'runs' && runId && method === 'GET' && action === 'events' && parts.length === 5) {
      return json(200, await eventsPage(deployed, event, principal, sessionId, runId));
    }
    if (
      runs === 'runs' &&
      runId &&
      method === 'POST' &&
      action === 'decisions' &&
      parts.length === 5
    ) {
      const body = parseMessage(HttpDecisionsBodySchema, bodyOf(event));
      if (!body.ok) return json(statusOf(body.error.code), body.error);
      const request = {
        principal,
        ...idempotencyKey(event),
        sessionId,
        runId,
        decisions: body.message.decisions,
        // A configured approver may decide here for the owner (the approvals inbox).
        channel: 'http' as const,
      };
      const timeoutMs = deployed.config.SYNC_RUN_TIMEOUT_MS;
      return json(200, await door.resumeNow(request, { timeoutMs }));
    }
  }
  throw new NotFound(`Route ${method} ${event.rawPath.slice(0, 200)}`);
}

/** Sync: the reply. Async: 202 and where to poll the run record. Idempotency-Key for both. */
async function postRun(
  door: FrontDoor,
  deployed: Deployment,
  event: HttpEvent,
  principal: unknown,
): Promise<Result> {
  const body = parseMessage(HttpRunBodySchema, bodyOf(event));
  if (!body.ok) return json(statusOf(body.error.code), body.error);
  const { agent, sessionId, input, mode } = body.message;
  const request = {
    principal,
    ...idempotencyKey(event),
    agent,
    ...(sessionId ? { sessionId } : {}),
    input,
  };
  if (mode === 'async') {
    const queued = await door.submitRun(request);
    const poll = `/sessions/${encodeURIComponent(queued.sessionId)}/runs/${queued.runId}`;
    return json(202, { status: 'queued', runId: queued.runId, sessionId: queued.sessionId, poll });
  }
  const timeoutMs = deployed.config.SYNC_RUN_TIMEOUT_MS;
  return json(200, await door.runNow(request, { timeoutMs }));
}

function sessionsOf(door: FrontDoor, deployed: Deployment) {
  const { sessionIndex: index } = deployed;
  return { policy: door.policy, sessions: deployed.runtime.sessions, index };
}

function inboxOf(door: FrontDoor, deployed: Deployment) {
  const { runtime, approvals: index } = deployed;
  const pausedRuns = {
    get: (s: string, r: string) => runtime.pausedRuns?.get(s, r) ?? Promise.resolve(undefined),
  };
  return { policy: door.policy, sessions: runtime.sessions, pausedRuns, index };
}

function query(event: HttpEvent): { limit?: string; cursor?: string } {
  const { limit, cursor } = event.queryStringParameters ?? {};
  return { ...(limit !== undefined ? { limit } : {}), ...(cursor !== undefined ? { cursor } : {}) };
}

/** A malformed escape (`/sessions/%E0`) is the caller's mistake: 400, not a 500. */
function pathParts(rawPath: string): string[] {
  try {
    return rawPath.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw new InvalidRequest(`The path "${rawPath.slice(0, 200)}" is not valid percent-encoding.`);
  }
}

function json(statusCode: number, body: unknown): Result {
  return {
    statusCode,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}
