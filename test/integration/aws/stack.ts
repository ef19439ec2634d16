import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import { type AwsClients, managementClients } from '../../../lib/aws/adapters/clients.js';
import { createApprovalsHandler } from '../../../lib/aws/handlers/approvals.js';
import { createFanoutHandler } from '../../../lib/aws/handlers/fanout.js';
import { createWorkerHandler } from '../../../lib/aws/handlers/worker.js';
import { createConnectHandler } from '../../../lib/aws/handlers/ws-connection.js';
import { createMessageHandler } from '../../../lib/aws/handlers/ws-message.js';
import type { Deployment } from '../../../lib/aws/wiring/deployment.js';
import type { MessageDeployment } from '../../../lib/aws/wiring/light-deployments.js';
import type { LocalEndpoint } from '../../../lib/local/dynalite.js';
import { createQueue, drain, localSqsClient, startLocalSqs } from '../../../lib/local/sqs.js';
import type { ScriptedModelServer } from '../../../lib/testing/index.js';
import { type DynamoProxy, startDynamoProxy } from '../../helpers/faults/dynamo-proxy.js';
import { type DeploymentOptions, deployment, sampleEvent } from './setup.js';

/** Stands in for API Gateway's @connections endpoint: records posts, answers 410 for gone ones. */
export interface ConnectionsServer {
  url: string;
  /** Every message posted to each connection, parsed, in arrival order. */
  received: Map<string, any[]>;
  gone: Set<string>;
  /** Connections answering this HTTP status (e.g. 500) instead of taking the message. */
  failing: Map<string, number>;
  /** Posts answered with an error, per connection. */
  refused: Map<string, number>;
  /** Called with each message a connection took (after recording it). */
  onPost?: ((connectionId: string, message: any) => void) | undefined;
  messages(connectionId: string): any[];
  close(): Promise<void>;
}

export async function startConnectionsServer(): Promise<ConnectionsServer> {
  const received = new Map<string, any[]>();
  const gone = new Set<string>();
  const failing = new Map<string, number>();
  const refused = new Map<string, number>();
  const self = {} as ConnectionsServer;
  const server: Server = createServer((req, res) => {
    const match = /^\/@connections\/([^/?]+)$/.exec(req.url ?? '');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = match?.[1] ? decodeURIComponent(match[1]) : undefined;
      if (req.method !== 'POST' || id === undefined) {
        res.writeHead(404).end();
      } else if (gone.has(id)) {
        res.writeHead(410, { 'content-type': 'application/json' }).end('{"message":"Gone"}');
      } else if (failing.has(id)) {
        refused.set(id, (refused.get(id) ?? 0) + 1);
        res
          .writeHead(failing.get(id) as number, { 'content-type': 'application/json' })
          .end('{"message":"Internal server error"}');
      } else {
        const list = received.get(id) ?? [];
        const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        list.push(message);
        received.set(id, list);
        res.writeHead(200).end();
        self.onPost?.(id, message);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(self, {
    url: `http://127.0.0.1:${port}`,
    received,
    gone,
    failing,
    refused,
    messages: (id: string) => received.get(id) ?? [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

export interface Stack {
  deployed: Deployment;
  sqs: SQSClient;
  clients: AwsClients;
  queues: { run: string; runDlq: string; events: string; approvals: string; requests: string };
  handlers: {
    connect: ReturnType<typeof createConnectHandler>;
    message: ReturnType<typeof createMessageHandler>;
    worker: ReturnType<typeof createWorkerHandler>;
    fanout: ReturnType<typeof createFanoutHandler>;
    approvals: ReturnType<typeof createApprovalsHandler>;
  };
}

/** Shared by a test file: the SQS endpoint and the @connections stand-in. */
export interface Endpoints {
  sqs: LocalEndpoint;
  sqsClient: SQSClient;
  connections: ConnectionsServer;
}

export async function startEndpoints(): Promise<Endpoints> {
  const sqs = await startLocalSqs();
  return { sqs, sqsClient: localSqsClient(sqs.url), connections: await startConnectionsServer() };
}

export async function stopEndpoints(endpoints: Endpoints): Promise<void> {
  endpoints.sqsClient.destroy();
  await endpoints.sqs.stop();
  await endpoints.connections.close();
}

/**
 * The test file's endpoints, started before its tests and stopped after them. Every test starts
 * with a clean @connections stand-in: nothing received, none gone, failing or refused.
 */
export function useEndpoints(): Endpoints {
  const endpoints = {} as Endpoints;
  beforeAll(async () => {
    filled(endpoints, await startEndpoints());
  });
  afterAll(async () => {
    await stopEndpoints(endpoints);
  });
  beforeEach(() => {
    const { connections } = endpoints;
    for (const records of [connections.received, connections.gone, connections.failing]) {
      records.clear();
    }
    connections.refused.clear();
    connections.onPost = undefined;
  });
  return endpoints;
}

/** The test file's DynamoDB proxy in front of dynalite; every test starts without faults. */
export function useDynamoProxy(): DynamoProxy {
  const proxy = {} as DynamoProxy;
  beforeAll(async () => {
    filled(proxy, await startDynamoProxy(inject('dynaliteEndpoint')));
  });
  afterAll(async () => {
    await proxy.close();
  });
  beforeEach(() => {
    proxy.setRule(undefined);
    proxy.hold(undefined);
    proxy.log.length = 0;
  });
  return proxy;
}

/** Fills the object handed out before `beforeAll` ran; getters (the proxy's `held`) stay live. */
function filled<T extends object>(target: T, source: T): void {
  Object.defineProperties(target, Object.getOwnPropertyDescriptors(source));
}

/** Fresh queues and table, and every handler wired to them. */
export async function newStack(
  server: ScriptedModelServer,
  endpoints: Endpoints,
  env: Record<string, string> = {},
  options: DeploymentOptions & { maxReceiveCount?: number } = {},
): Promise<Stack> {
  const sqs = endpoints.sqsClient;
  const id = randomBytes(4).toString('hex');
  const receives = options.maxReceiveCount ?? 5;
  const run = await createQueue(sqs, `run-${id}`, { fifo: true, maxReceiveCount: receives });
  const events = await createQueue(sqs, `events-${id}`, { fifo: true });
  const approvals = await createQueue(sqs, `approvals-${id}`);
  const requests = await createQueue(sqs, `approval-requests-${id}`);
  const deployed = await deployment(
    server,
    {
      SQS_ENDPOINT: endpoints.sqs.url,
      RUN_QUEUE_URL: run.url,
      EVENTS_QUEUE_URL: events.url,
      APPROVALS_QUEUE_URL: approvals.url,
      APPROVAL_REQUESTS_QUEUE_URL: requests.url,
      WEBSOCKET_ENDPOINT: endpoints.connections.url,
      JOB_MAX_RECEIVES: String(receives),
      // Tests drain the queue at once; the backoff itself is tested on its own.
      JOB_RETRY_BASE_SECONDS: '0',
      ...env,
    },
    options,
  );
  const clients: AwsClients = {
    sqs,
    management: managementClients('us-east-1', { accessKeyId: 'l', secretAccessKey: 'l' }),
  };
  const get = async () => deployed;
  return {
    deployed,
    sqs,
    clients,
    queues: {
      run: run.url,
      runDlq: run.dlqUrl as string,
      events: events.url,
      approvals: approvals.url,
      requests: requests.url,
    },
    handlers: {
      connect: createConnectHandler(get),
      message: createMessageHandler(async () => messageViewOf(deployed), { clients }),
      worker: createWorkerHandler(get, { clients }),
      fanout: createFanoutHandler(get, { clients }),
      approvals: createApprovalsHandler(get, { clients }),
    },
  };
}

/** Connects a client as the $connect route would after the authorizer let it in. */
export async function connect(stack: Stack, connectionId: string, principal: string) {
  await stack.handlers.connect(wsEvent('websocket/connect.json', connectionId, principal));
}

/** A WebSocket event from the samples, for this connection and principal, with this body. */
export function wsEvent(path: string, connectionId: string, principal: string, body?: string) {
  const event = sampleEvent(path, { CONNECTION_ID: connectionId, 'user-1': principal });
  if (body !== undefined) event.body = body;
  return event;
}

export function send(stack: Stack, connectionId: string, principal: string, body: unknown) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return stack.handlers.message(
    wsEvent('websocket/message-run.json', connectionId, principal, text),
  );
}

type Handler = (event: SQSEvent) => Promise<SQSBatchResponse>;

/** Runs each queue's consumer until all three queues are empty, as the event sources would. */
export async function settle(stack: Stack): Promise<void> {
  const sqs = stack.sqs;
  for (let round = 0; round < 20; round++) {
    const handled =
      (await drain(sqs, stack.queues.approvals, stack.handlers.approvals as Handler)) +
      (await drain(sqs, stack.queues.run, stack.handlers.worker as Handler)) +
      (await drain(sqs, stack.queues.events, stack.handlers.fanout as Handler));
    if (handled === 0) return;
  }
}

/** The in-process deployment as ws-message sees it (deployed, it reads AGENT_NAMES instead). */
export function messageViewOf(deployed: Deployment): MessageDeployment {
  const { runtime } = deployed;
  if (!runtime.pausedRuns) throw new Error('ws-message needs a paused-run store');
  return {
    config: deployed.config,
    connections: deployed.connections,
    tracer: deployed.tracer,
    sessions: runtime.sessions,
    pausedRuns: runtime.pausedRuns,
    runs: deployed.runs,
    events: deployed.events,
    idempotency: deployed.idempotency,
    idKey: deployed.idKey,
    agentNames: new Set(runtime.agents.map((agent) => agent.name)),
  };
}
