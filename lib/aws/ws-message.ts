import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import { AgentKernelError, AgentNotFound, SessionForbidden, toErrorInfo } from '../core/errors.js';
import { PausedRunNotFound } from '../core/stores.js';
import { activeSpan } from '../core/tracer.js';
import { runJobFifoKeys } from '../transport/fifo.js';
import { parseInbound } from '../transport/parse.js';
import type {
  ClientMessage,
  ResumeMessage,
  RunJob,
  RunMessage,
  ServerMessage,
} from '../transport/protocol.js';
import { type AwsClients, clientsFor } from './clients.js';
import type { MessageDeployment } from './connections.js';
import { postTo } from './post.js';
import { queueUrl, sendJson } from './queues.js';
import {
  endpointOf,
  ok,
  principalOf,
  type WebSocketEvent,
  type WebSocketResult,
} from './websocket.js';

class SessionNotFound extends AgentKernelError {
  constructor(sessionId: string) {
    super('not-found', `Session "${sessionId}" was not found.`);
  }
}

interface Context {
  deployed: MessageDeployment;
  clients: AwsClients;
  connectionId: string;
  principal: string | undefined;
}

/**
 * The `$default` route: `run` and `resume` become jobs on the run queue (answered `accepted`),
 * `subscribe`/`unsubscribe` change what the connection receives. Every refused message is
 * answered with an `error` on the same connection, which stays open; nothing is stored.
 */
export function createMessageHandler(
  deployment: () => Promise<MessageDeployment>,
  options: { clients?: AwsClients; logger?: Logger } = {},
) {
  const { logger } = options;
  let clients = options.clients;
  return async (event: WebSocketEvent): Promise<WebSocketResult> => {
    const deployed = await deployment();
    clients ??= clientsFor(deployed.config);
    const connectionId = event.requestContext.connectionId;
    const target = {
      connectionId,
      endpoint: endpointOf(event, deployed.config.WEBSOCKET_ENDPOINT),
    };
    const reply = (message: ServerMessage) =>
      postTo(clients as AwsClients, deployed.connections, target, message);
    const raw = event.isBase64Encoded
      ? Buffer.from(event.body ?? '', 'base64').toString('utf8')
      : (event.body ?? '');
    const parsed = parseInbound(raw);
    if (!parsed.ok) {
      await reply(parsed.error);
      return ok;
    }
    const message = parsed.message;
    const context = { deployed, clients, connectionId, principal: principalOf(event) };
    try {
      const answer = await dispatch(context, message);
      if (answer?.type === 'accepted') logger?.info('job queued', { action: message.action });
      if (answer) await reply(answer);
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
      });
    }
    return ok;
  };
}

async function dispatch(
  context: Context,
  message: ClientMessage,
): Promise<ServerMessage | undefined> {
  const { connections } = context.deployed;
  switch (message.action) {
    case 'run':
      return run(context, message);
    case 'resume':
      return resume(context, message);
    case 'subscribe':
      await checkOwner(context, message.sessionId, true);
      await connections.subscribe(context.connectionId, message.sessionId, message.format);
      return undefined;
    case 'unsubscribe':
      await checkOwner(context, message.sessionId, false);
      await connections.unsubscribe(context.connectionId, message.sessionId);
      return undefined;
  }
}

async function run(context: Context, message: RunMessage): Promise<ServerMessage> {
  const { deployed } = context;
  const sessionId = message.sessionId ?? randomUUID();
  // Refused here rather than by the worker, so the client hears it now and nothing is queued.
  if (deployed.agentNames && !deployed.agentNames.has(message.agent)) {
    throw new AgentNotFound(message.agent);
  }
  await checkOwner(context, sessionId, false);
  const runId = runIdFor(context.principal, sessionId, message.requestId);
  const job: RunJob = {
    kind: 'run',
    requestId: message.requestId,
    ...(context.principal ? { principal: context.principal } : {}),
    agent: message.agent,
    sessionId,
    runId,
    input: message.input,
    connectionId: context.connectionId,
    enqueuedAt: Date.now(),
  };
  await enqueue(context, job);
  return { type: 'accepted', requestId: message.requestId, sessionId, runId };
}

async function resume(context: Context, message: ResumeMessage): Promise<ServerMessage> {
  const { sessionId, runId } = message;
  await checkOwner(context, sessionId, true);
  const paused = await context.deployed.pausedRuns.get(sessionId, runId);
  if (!paused) throw new PausedRunNotFound(sessionId, runId);
  const job: RunJob = {
    kind: 'resume',
    requestId: message.requestId,
    ...(context.principal ? { principal: context.principal } : {}),
    agent: paused.agent,
    sessionId,
    runId,
    decisions: message.decisions,
    connectionId: context.connectionId,
    enqueuedAt: Date.now(),
  };
  await enqueue(context, job);
  return { type: 'accepted', requestId: message.requestId, sessionId, runId };
}

/** Queues the job and subscribes the requester to its session, so it sees the run's events. */
async function enqueue(context: Context, job: RunJob): Promise<void> {
  const { deployed, clients } = context;
  // The job carries this span's trace header: the worker's and fan-out's spans join this trace.
  activeSpan()?.setAttributes({
    requestId: job.requestId,
    sessionId: job.sessionId,
    runId: job.runId,
    agent: job.agent,
  });
  const url = queueUrl(deployed.config, 'RUN_QUEUE_URL');
  await sendJson(clients.sqs, url, job, runJobFifoKeys(job));
  await deployed.connections.subscribe(context.connectionId, job.sessionId);
}

/** A session of another principal is refused; `mustExist` also refuses one not created yet. */
async function checkOwner(context: Context, sessionId: string, mustExist: boolean): Promise<void> {
  const stored = await context.deployed.sessions.load(sessionId);
  if (!stored) {
    if (mustExist) throw new SessionNotFound(sessionId);
    return;
  }
  if (stored.data.owner !== undefined && stored.data.owner !== context.principal)
    throw new SessionForbidden(sessionId);
}

/**
 * The same request sent again (a client retrying after a lost `accepted`) gets the same runId,
 * matching the one job the run queue keeps for its requestId.
 */
function runIdFor(principal: string | undefined, sessionId: string, requestId: string): string {
  const hex = createHash('sha256')
    .update(JSON.stringify([principal ?? '', sessionId, requestId]))
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
