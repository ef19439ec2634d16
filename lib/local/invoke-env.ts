/**
 * What `npm run invoke` puts around one function before loading it, as the deployment would:
 * a table (its own dynalite, or the one TABLE_NAME/DYNAMODB_ENDPOINT name), queues (local SQS
 * unless RUN_QUEUE_URL is set), a WebSocket connections endpoint that prints what is posted to
 * a client, a development JWT secret, and the offline model unless a model is configured.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { createDynamoClient, createTable } from '../stores/dynamodb/index.js';
import { type ScriptEntry, startScriptedModelServer } from '../testing/scripted-model-server.js';
import { CliError, isUnreachable } from './cli.js';
import { startDynalite } from './dynalite.js';
import { offlineChunkDelayMs, offlineModelEnv } from './offline-model.js';
import { createQueue, localSqsClient, startLocalSqs } from './sqs.js';

export type Stop = () => Promise<void>;

/** Sets the environment up; answers what to stop afterwards, in reverse order. */
export async function prepareEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<Stop[]> {
  const stops: Stop[] = [];
  try {
    env.AWS_REGION ??= 'us-east-1';
    if (!env.TABLE_NAME || env.DYNAMODB_ENDPOINT) {
      // Emulators sign with anything; a real table (TABLE_NAME alone) keeps the real credentials.
      env.AWS_ACCESS_KEY_ID ??= 'local';
      env.AWS_SECRET_ACCESS_KEY ??= 'local';
    }
    await prepareTable(env, stops);
    if (!env.RUN_QUEUE_URL) await prepareQueues(env, stops);
    if (!env.WEBSOCKET_ENDPOINT) await prepareConnections(env, stops);
    if (!env.AUTH_MODE) {
      env.AUTH_MODE = 'hs256';
      env.JWT_SECRET ??= randomBytes(24).toString('hex');
    }
    // Any provider left unconfigured (OpenAI, Gemini, Bedrock) gets the scripted model server.
    if (Object.keys(offlineModelEnv(env, 'http://x/v1')).length > 0) await prepareModel(env, stops);
    return stops;
  } catch (err) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw err;
  }
}

async function prepareTable(env: NodeJS.ProcessEnv, stops: Stop[]): Promise<void> {
  if (env.TABLE_NAME && !env.DYNAMODB_ENDPOINT) return; // a real table on AWS
  if (env.TABLE_NAME && env.DYNAMODB_ENDPOINT) {
    const endpoint = env.DYNAMODB_ENDPOINT;
    const client = createDynamoClient({ endpoint });
    try {
      await createTable(client, env.TABLE_NAME);
    } catch (err) {
      if ((err as Error).name === 'ResourceInUseException') return;
      if (isUnreachable(err)) {
        throw new CliError(
          'emulator-unreachable',
          `no DynamoDB answers at ${endpoint} (DYNAMODB_ENDPOINT)`,
          'start the emulator there first, or unset TABLE_NAME and DYNAMODB_ENDPOINT: ' +
            'invoke then starts a dynalite of its own.',
        );
      }
      throw err;
    } finally {
      client.destroy();
    }
    return;
  }
  const dynalite = await startDynalite();
  stops.push(dynalite.stop);
  const client = createDynamoClient({ endpoint: dynalite.url });
  await createTable(client, 'agent-kernel-local').finally(() => client.destroy());
  env.TABLE_NAME = 'agent-kernel-local';
  env.DYNAMODB_ENDPOINT = dynalite.url;
}

async function prepareQueues(env: NodeJS.ProcessEnv, stops: Stop[]): Promise<void> {
  const endpoint = await startLocalSqs();
  stops.push(endpoint.stop);
  const sqs = localSqsClient(endpoint.url);
  try {
    env.SQS_ENDPOINT = endpoint.url;
    env.RUN_QUEUE_URL = (await createQueue(sqs, 'runs', { fifo: true })).url;
    env.EVENTS_QUEUE_URL = (await createQueue(sqs, 'events', { fifo: true })).url;
    env.APPROVALS_QUEUE_URL = (await createQueue(sqs, 'approvals')).url;
    env.APPROVAL_REQUESTS_QUEUE_URL = (await createQueue(sqs, 'approval-requests')).url;
  } finally {
    sqs.destroy();
  }
}

/** API Gateway's @connections API, printing each post: what a client would have received. */
async function prepareConnections(env: NodeJS.ProcessEnv, stops: Stop[]): Promise<void> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const id = decodeURIComponent(req.url?.split('/@connections/')[1] ?? '?');
      if (req.method === 'POST') process.stderr.write(`posted to connection ${id}: ${body}\n`);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stops.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  env.WEBSOCKET_ENDPOINT = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function prepareModel(env: NodeJS.ProcessEnv, stops: Stop[]): Promise<void> {
  const entry = (await import('#agents')) as { offlineResponder?: ScriptEntry };
  const model = await startScriptedModelServer({
    fallback: entry.offlineResponder ?? { text: 'Hello from the offline scripted model.' },
    chunkDelayMs: offlineChunkDelayMs(),
  });
  stops.push(() => model.close());
  Object.assign(env, offlineModelEnv(env, model.url));
}

/**
 * The samples' placeholder tokens (`JWT`, `Bearer JWT`) become a development token for the
 * samples' principal, signed with the JWT_SECRET the functions verify with (hs256 only).
 */
export async function withDevTokens(event: unknown, env: NodeJS.ProcessEnv): Promise<unknown> {
  if (env.AUTH_MODE !== 'hs256' || !env.JWT_SECRET) return event;
  const text = JSON.stringify(event);
  if (!text.includes('"JWT"') && !text.includes('"Bearer JWT"')) return event;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('user-1')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(env.JWT_SECRET));
  return JSON.parse(
    text.replaceAll('"Bearer JWT"', `"Bearer ${token}"`).replaceAll('"JWT"', `"${token}"`),
  );
}
