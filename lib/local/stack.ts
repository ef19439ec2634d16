import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { SignJWT } from 'jose';
import { retryDelaySeconds } from '../aws/adapters/sqs-queues.js';
import { agentNamesOf } from '../aws/wiring/agents-entry.js';
import { loadConfig } from '../aws/wiring/config.js';
import { createDynamoClient, createTable } from '../stores/dynamodb/index.js';
import { lambdaContext } from '../testing/lambda-context.js';
import { type ScriptEntry, startScriptedModelServer } from '../testing/scripted-model-server.js';
import { startDynalite } from './dynalite.js';
import { startFunctionUrl } from './function-url.js';
import { FUNCTIONS } from './functions.js';
import { type Gateway, type GatewayHandlers, startGateway } from './gateway.js';
import { offlineChunkDelayMs, offlineModelEnv } from './offline-model.js';
import {
  createQueue,
  localSqsClient,
  type Poller,
  type SqsHandler,
  startLocalSqs,
  startPoller,
  type Wake,
} from './sqs.js';

export interface LocalStack {
  readonly httpUrl: string;
  readonly wsUrl: string;
  /** The streaming function's Function URL (RESPONSE_STREAM): `POST /runs` as SSE. */
  readonly streamUrl: string;
  /** The playground page (served by the stream function, as `playground=true` deploys it). */
  readonly playgroundUrl: string;
  /** A development token (HS256, sub = `developer`) accepted by both APIs. */
  readonly token: string;
  readonly queues: Record<'run' | 'events' | 'approvals' | 'approvalRequests', string>;
  readonly sqsEndpoint: string;
  /** Signs a development token for another principal. */
  tokenFor(sub: string): Promise<string>;
  /** A direct Lambda invoke of the invoke function (IAM-authenticated on AWS). */
  invoke(payload: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

type Handler = (event: any, context: any) => Promise<any>;

/**
 * The whole deployment on 127.0.0.1, offline: dynalite, local-aws-sqs with Lambda-like pollers,
 * API Gateway emulation, and the very handler modules of functions/ (loaded once the environment
 * they read at cold start is in place). Without a model configured (OpenAI, Gemini or Bedrock
 * settings: `offlineModelEnv`) the agents talk to the scripted model server, answering with the
 * agents entry's `offlineResponder`.
 */
export interface LocalStackOptions {
  port?: number;
  /** The HTTP API's authorizer: API Gateway's JWT authorizer (default) or the Lambda one. */
  httpAuth?: 'jwt' | 'lambda';
  /** Told of each function invocation and its wall time (bench/cost counts Lambda GB-s). */
  onInvoke?: (name: string, ms: number) => void;
  /**
   * The emulated Lambda deadline (`getRemainingTimeInMillis` at the start) per function, by
   * file name (`invoke`, `worker`, `stream`...): 60 s unless given (a test may give a function
   * its deployed timeout, infra/functions.ts).
   */
  timeoutsMs?: Partial<Record<string, number>>;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn().catch(() => undefined);
  };
  const contextOf = (name: string) => lambdaContext(name, options.timeoutsMs?.[name] ?? 60_000);
  try {
    const dynalite = await startDynalite();
    stops.push(dynalite.stop);
    const dynamo = createDynamoClient({ endpoint: dynalite.url });
    await createTable(dynamo, 'agent-kernel-local');
    dynamo.destroy();

    const sqsEndpoint = await startLocalSqs();
    stops.push(sqsEndpoint.stop);
    const sqs = localSqsClient(sqsEndpoint.url);
    const run = await createQueue(sqs, 'runs', { fifo: true, maxReceiveCount: 5 });
    const events = await createQueue(sqs, 'events', { fifo: true, maxReceiveCount: 3 });
    const approvals = await createQueue(sqs, 'approvals', { maxReceiveCount: 3 });
    const approvalRequests = await createQueue(sqs, 'approval-requests');

    if (Object.keys(offlineModelEnv(process.env, 'http://x/v1')).length > 0) {
      const entry = (await import('#agents')) as { offlineResponder?: ScriptEntry };
      const model = await startScriptedModelServer({
        fallback: entry.offlineResponder ?? { text: 'Hello from the offline scripted model.' },
        chunkDelayMs: offlineChunkDelayMs(),
      });
      stops.push(() => model.close());
      Object.assign(process.env, offlineModelEnv(process.env, model.url));
    }

    const secret = process.env.JWT_SECRET ?? randomBytes(24).toString('hex');
    const loaded: Partial<Record<string, Handler>> = {};
    const call =
      (name: string): Handler =>
      async (event, context) => {
        const started = performance.now();
        try {
          return await (loaded[name] as Handler)(event, context);
        } finally {
          options.onInvoke?.(name, performance.now() - started);
        }
      };
    const handlers: GatewayHandlers = {
      http: call('http'),
      authorizer: call('authorizer'),
      connect: call('ws-connect'),
      disconnect: call('ws-disconnect'),
      message: call('ws-message'),
    };
    // Checked by both authorizers when set, and put in every development token.
    const issuer = process.env.JWT_ISSUER || undefined;
    const audience = process.env.JWT_AUDIENCE || undefined;
    const gateway: Gateway = await startGateway(handlers, {
      secret,
      ...(issuer ? { issuer } : {}),
      ...(audience ? { audience } : {}),
      port: options.port,
      ...(options.httpAuth ? { httpAuth: options.httpAuth } : {}),
      context: contextOf,
    });
    stops.push(() => gateway.close());

    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'local',
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
      TABLE_NAME: 'agent-kernel-local',
      DYNAMODB_ENDPOINT: dynalite.url,
      SQS_ENDPOINT: sqsEndpoint.url,
      RUN_QUEUE_URL: run.url,
      EVENTS_QUEUE_URL: events.url,
      APPROVALS_QUEUE_URL: approvals.url,
      APPROVAL_REQUESTS_QUEUE_URL: approvalRequests.url,
      WEBSOCKET_ENDPOINT: gateway.connectionsUrl,
      AUTH_MODE: 'hs256',
      // The back-office principal `npm run approve` may use to decide any session's runs.
      APPROVER_PRINCIPALS: process.env.APPROVER_PRINCIPALS ?? 'back-office',
      JWT_SECRET: secret,
      // Fair use metered as the stack deploys it (GET /usage); limits only from QUOTA_* set here.
      QUOTAS: process.env.QUOTAS ?? 'on',
      // The playground page the stream function serves, talking to these two APIs.
      PLAYGROUND_DIR: resolve(import.meta.dirname, '../playground'),
      PLAYGROUND_HTTP_URL: gateway.url,
      PLAYGROUND_WS_URL: gateway.wsUrl,
      // As the stack sets it on ws-message (infra/app.ts): unknown agents are refused up front.
      AGENT_NAMES:
        process.env.AGENT_NAMES ?? (await agentNamesOf(await import('#agents'))).join(','),
    });
    for (const name of FUNCTIONS) {
      const url = pathToFileURL(resolve(import.meta.dirname, '../../functions', `${name}.ts`)).href;
      loaded[name] = ((await import(url)) as { handler: Handler }).handler;
    }
    const streamUrl = await startStreamFunction(stops, options.timeoutsMs?.stream ?? 60_000);
    // Each poller wakes when a message is sent to its queue, as an event source mapping does.
    const wake =
      (url: string): Wake =>
      (listener) =>
        sqsEndpoint.onSend((name) => {
          if (name === url.split('/').at(-1)) listener();
        });
    const onSqs =
      (name: string): SqsHandler =>
      (event) =>
        call(name)(event, contextOf(name));
    const pollers: Poller[] = [
      // A failed job waits the backoff the worker set as its visibility, as on AWS.
      startPoller(sqs, run.url, onSqs('worker'), {
        batchSize: 10,
        wake: wake(run.url),
        retryDelayMs: (receives) => retryDelaySeconds(receives, loadConfig(process.env)) * 1000,
      }),
      startPoller(sqs, events.url, onSqs('fanout'), {
        batchSize: 10,
        wake: wake(events.url),
      }),
      startPoller(sqs, approvals.url, onSqs('approvals'), {
        batchSize: 10,
        wake: wake(approvals.url),
      }),
    ];
    stops.push(async () => {
      await Promise.all(pollers.map((p) => p.stop()));
      sqs.destroy();
    });

    // Every token needs `exp` (both authorizers refuse one without): 12 hours.
    const tokenFor = (sub: string) => {
      const jwt = new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(sub)
        .setIssuedAt()
        .setExpirationTime('12h');
      if (issuer) jwt.setIssuer(issuer);
      if (audience) jwt.setAudience(audience);
      return jwt.sign(new TextEncoder().encode(secret));
    };
    return {
      httpUrl: gateway.url,
      wsUrl: gateway.wsUrl,
      streamUrl,
      playgroundUrl: `${streamUrl}/`,
      token: await tokenFor('developer'),
      queues: {
        run: run.url,
        events: events.url,
        approvals: approvals.url,
        approvalRequests: approvalRequests.url,
      },
      sqsEndpoint: sqsEndpoint.url,
      tokenFor,
      invoke: (payload) => call('invoke')(payload, contextOf('invoke')),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** functions/stream.ts behind its local Function URL (lib/local/function-url.ts). */
async function startStreamFunction(
  stops: (() => Promise<void>)[],
  timeoutMs: number,
): Promise<string> {
  const url = pathToFileURL(resolve(import.meta.dirname, '../../functions/stream.ts')).href;
  const { handler } = (await import(url)) as { handler: Handler };
  const functionUrl = await startFunctionUrl(handler, {
    context: () => lambdaContext('stream', timeoutMs),
    timeoutMs,
  });
  stops.push(() => functionUrl.close());
  return functionUrl.url;
}
