import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { AgentKernelError, InvalidRequest, RunAborted, SessionForbidden } from '../core/errors.js';
import { runJobFifoKeys } from '../transport/fifo.js';
import { parseMessage } from '../transport/parse.js';
import {
  HttpDecisionsBodySchema,
  type HttpRunBody,
  HttpRunBodySchema,
  type RunJob,
} from '../transport/protocol.js';
import { clientsFor } from './clients.js';
import { errorBody, statusOf } from './errors-http.js';
import { queueUrl, sendJson } from './queues.js';
import type { Deployment } from './runtime.js';

type Event = APIGatewayProxyEventV2 & {
  requestContext: {
    authorizer?: { jwt?: { claims?: Record<string, unknown> }; lambda?: Record<string, unknown> };
  };
};
type Result = Exclude<APIGatewayProxyResultV2, string>;

class NotFound extends AgentKernelError {
  constructor(what: string) {
    super('not-found', `${what} was not found.`);
  }
}

/**
 * The HTTP API: `POST /runs`, `GET /sessions/{id}`, `GET /sessions/{id}/runs/{runId}`,
 * `POST /sessions/{id}/runs/{runId}/decisions`, `GET /agents`, `GET /health`. Runs here are
 * synchronous and end inside API Gateway's 29 s; every error is a JSON body with a code.
 */
export function createHttpHandler(
  deployment: () => Promise<Deployment>,
  logger?: Logger,
  options: { sqs?: SQSClient } = {},
) {
  let sqs = options.sqs;
  // The SQS client is made on the first async run only: sync-only deployments never need it.
  const sqsFor = (deployed: Deployment) => {
    sqs ??= clientsFor(deployed.config).sqs;
    return sqs;
  };
  return async (event: Event): Promise<Result> => {
    try {
      const deployed = await deployment();
      const { runtime, config, runs } = deployed;
      const method = event.requestContext.http.method;
      const parts = pathParts(event.rawPath);
      const principal = principalOf(event);
      if (method === 'GET' && parts.join('/') === 'health') return json(200, { status: 'ok' });
      if (method === 'GET' && parts.join('/') === 'agents') {
        return json(200, { agents: runtime.agents.map((agent) => agent.card()) });
      }
      if (method === 'POST' && parts.join('/') === 'runs') {
        const body = parseMessage(HttpRunBodySchema, bodyOf(event));
        if (!body.ok) return json(statusOf(body.error.code), body.error);
        const sessionId = body.message.sessionId ?? randomUUID();
        if (body.message.mode === 'async') {
          const queued = await enqueueRun(
            deployed,
            sqsFor(deployed),
            body.message,
            sessionId,
            principal,
            event,
          );
          return json(202, queued);
        }
        const reply = await withTimeout(config.SYNC_RUN_TIMEOUT_MS, (signal) =>
          runtime.run(body.message.agent, sessionId, body.message.input, { principal, signal }),
        );
        return json(200, reply);
      }
      if (parts[0] === 'sessions' && parts[1]) {
        const sessionId = parts[1];
        if (method === 'GET' && parts.length === 2) {
          const stored = await runtime.sessions.load(sessionId);
          if (!stored) throw new NotFound(`Session "${sessionId}"`);
          if (stored.data.owner !== undefined && stored.data.owner !== principal)
            throw new SessionForbidden(sessionId);
          const { id, agent, turns, createdAt, updatedAt, paused } = stored.data;
          return json(200, {
            sessionId: id,
            agent,
            turns,
            createdAt,
            updatedAt,
            paused: paused ?? [],
          });
        }
        if (parts[2] === 'runs' && parts[3]) {
          const runId = parts[3];
          if (method === 'POST' && parts[4] === 'decisions' && parts.length === 5) {
            const body = parseMessage(HttpDecisionsBodySchema, bodyOf(event));
            if (!body.ok) return json(statusOf(body.error.code), body.error);
            const reply = await withTimeout(config.SYNC_RUN_TIMEOUT_MS, (signal) =>
              runtime.resume(sessionId, runId, body.message.decisions, { principal, signal }),
            );
            return json(200, reply);
          }
          if (method === 'GET' && parts.length === 4) {
            return json(200, await runStatus(runtime, runs, sessionId, runId, principal));
          }
        }
      }
      throw new NotFound(`Route ${method} ${event.rawPath}`);
    } catch (err) {
      if (!(err instanceof AgentKernelError)) logger?.error('http request failed', err as Error);
      const body = errorBody(err);
      return json(statusOf(body.code), body);
    }
  };
}

/**
 * `mode: "async"`: a queued run record, then a run job on the FIFO run queue (group = session);
 * the worker runs it and updates the record, which `GET /sessions/{id}/runs/{runId}` returns.
 * An `Idempotency-Key` header becomes the job's requestId, so a retried POST queues one run.
 */
async function enqueueRun(
  deployed: Deployment,
  sqs: SQSClient,
  body: HttpRunBody,
  sessionId: string,
  principal: string | undefined,
  event: Event,
): Promise<{ status: 'queued'; runId: string; sessionId: string; poll: string }> {
  const { runtime, runs, config } = deployed;
  runtime.agent(body.agent);
  const session = await runtime.sessions.load(sessionId);
  if (session?.data.owner !== undefined && session.data.owner !== principal) {
    throw new SessionForbidden(sessionId);
  }
  const key = event.headers?.['idempotency-key'];
  const requestId = key && /^[A-Za-z0-9._:-]{1,128}$/.test(key) ? key : randomUUID();
  // The same key gives the same run id, so a retry polls the run the first request queued.
  const runId = key
    ? createHash('sha256')
        .update(`${principal ?? ''}|${sessionId}|${requestId}`)
        .digest('hex')
        .slice(0, 32)
    : randomUUID();
  const now = Date.now();
  if (!(await runs.get(sessionId, runId))) {
    await runs.put({
      schemaVersion: 1,
      runId,
      sessionId,
      agent: body.agent,
      status: 'queued',
      createdAt: now,
      updatedAt: now,
    });
  }
  const job: RunJob = {
    kind: 'run',
    requestId,
    ...(principal ? { principal } : {}),
    agent: body.agent,
    sessionId,
    runId,
    input: body.input,
    enqueuedAt: now,
  };
  await sendJson(sqs, queueUrl(config, 'RUN_QUEUE_URL'), job, runJobFifoKeys(job));
  return {
    status: 'queued',
    runId,
    sessionId,
    poll: `/sessions/${encodeURIComponent(sessionId)}/runs/${runId}`,
  };
}

/** A run record (async runs), else the paused run waiting for decisions. */
async function runStatus(
  runtime: Deployment['runtime'],
  runs: Deployment['runs'],
  sessionId: string,
  runId: string,
  principal: string | undefined,
): Promise<unknown> {
  const session = await runtime.sessions.load(sessionId);
  if (session?.data.owner !== undefined && session.data.owner !== principal)
    throw new SessionForbidden(sessionId);
  const record = await runs.get(sessionId, runId);
  if (record) return record;
  const paused = await runtime.pausedRuns?.get(sessionId, runId);
  if (paused) {
    return {
      runId,
      sessionId,
      agent: paused.agent,
      status: 'paused',
      interruptions: paused.interruptions,
      expiresAt: paused.expiresAt,
    };
  }
  throw new NotFound(`Run "${runId}" of session "${sessionId}"`);
}

async function withTimeout<T>(ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  try {
    return await fn(signal);
  } catch (err) {
    if (
      signal.aborted &&
      (err instanceof RunAborted ||
        (err as Error)?.name === 'AbortError' ||
        (err instanceof AgentKernelError && err.code === 'run-aborted'))
    ) {
      throw new AgentKernelError(
        'run-timeout',
        `The run did not finish within ${ms} ms; nothing was stored.`,
      );
    }
    throw err;
  }
}

/** A malformed escape (`/sessions/%E0`) is the caller's mistake: 400, not a 500. */
function pathParts(rawPath: string): string[] {
  try {
    return rawPath.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw new InvalidRequest(`The path "${rawPath.slice(0, 200)}" is not valid percent-encoding.`);
  }
}

function principalOf(event: Event): string | undefined {
  const authorizer = event.requestContext.authorizer;
  const sub = authorizer?.jwt?.claims?.sub ?? authorizer?.lambda?.principalId;
  return typeof sub === 'string' && sub ? sub : undefined;
}

function bodyOf(event: Event): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

function json(statusCode: number, body: unknown): Result {
  return {
    statusCode,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}
