import { type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { demoResponder } from '../../../examples/demo/offline-model.js';
import { type LocalStack, startLocalStack } from '../../../lib/local/stack.js';
import { createDynamoClient } from '../../../lib/stores/dynamodb/index.js';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../../lib/testing/index.js';

let stack: LocalStack;
let model: ScriptedModelServer;
let dynamo: DynamoDBClient;

/** Held answers: the model's reply to a tool's output waits until the test opens the gate. */
const gate = { closed: false, waiting: 0, open: () => {}, opened: Promise.resolve() };
function closeGate(): void {
  gate.closed = true;
  gate.opened = new Promise((resolve) => {
    gate.open = () => {
      gate.closed = false;
      resolve();
    };
  });
}

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  for (const key of ['TABLE_NAME', 'DYNAMODB_ENDPOINT']) delete process.env[key];
  // The demo agent's offline model, except that a run's second model call can be held.
  model = await startScriptedModelServer({
    fallback: async (request: RecordedRequest) => {
      const input = request.body?.input;
      if (gate.closed && Array.isArray(input) && input.at(-1)?.type === 'function_call_output') {
        gate.waiting++;
        await gate.opened;
      }
      return typeof demoResponder === 'function' ? demoResponder(request) : demoResponder;
    },
  });
  process.env.OPENAI_BASE_URL = model.url;
  process.env.OPENAI_API_KEY = 'offline';
  stack = await startLocalStack();
  dynamo = createDynamoClient({ endpoint: process.env.DYNAMODB_ENDPOINT as string });
}, 60_000);
afterAll(async () => {
  gate.open();
  dynamo?.destroy();
  await stack?.stop();
  await model?.close();
  for (const key of ['OPENAI_BASE_URL', 'OPENAI_API_KEY']) delete process.env[key];
});

interface Client {
  ws: WebSocket;
  messages: any[];
}

async function connect(): Promise<Client> {
  const ws = new WebSocket(`${stack.wsUrl}?token=${stack.token}`);
  const messages: any[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data))));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, messages };
}

/** Every `pk`/`sk` pair in the table, read with the real DynamoDB client. */
async function tableKeys(): Promise<{ pk: string; sk: string }[]> {
  const { Items = [] } = await dynamo.send(
    new ScanCommand({ TableName: process.env.TABLE_NAME, ConsistentRead: true }),
  );
  return Items.map((item) => ({ pk: item.pk?.S ?? '', sk: item.sk?.S ?? '' }));
}

async function connectionIds(): Promise<string[]> {
  return (await tableKeys())
    .filter((k) => k.pk.startsWith('CONN#'))
    .map((k) => k.pk.slice('CONN#'.length));
}

const mentioning = async (connectionId: string) =>
  (await tableKeys()).filter((k) => k.pk.includes(connectionId) || k.sk.includes(connectionId));

const batchesOf = (client: Client, runId: string) =>
  client.messages.filter((m) => m.type === 'events' && m.runId === runId);
const eventsOf = (client: Client, runId: string) =>
  batchesOf(client, runId).flatMap((m) => m.events);
const finished = (client: Client, runId: string) =>
  eventsOf(client, runId).some((e: any) => ['run-finished', 'run-error'].includes(e.type));

describe('two connections on one session (local stack)', () => {
  it('keeps streaming to one when the other disconnects mid-run, and cleans up the gone one', async () => {
    // Prepare: A runs a first turn (the session exists then), B subscribes to it.
    const sessionId = 'two-clients-1';
    const a = await connect();
    const [aId] = await connectionIds();
    const b = await connect();
    const bId = (await connectionIds()).find((id) => id !== aId) as string;
    a.ws.send(
      JSON.stringify({ action: 'run', requestId: 'first', agent: 'demo', sessionId, input: 'hi' }),
    );
    await expect
      .poll(() => a.messages.some((m) => m.type === 'accepted'), { timeout: 20_000 })
      .toBe(true);
    const firstRun = a.messages.find((m) => m.type === 'accepted').runId;
    await expect.poll(() => finished(a, firstRun), { timeout: 20_000 }).toBe(true);
    b.ws.send(JSON.stringify({ action: 'subscribe', sessionId }));
    await expect
      .poll(async () => (await mentioning(bId)).some((k) => k.sk.startsWith('SUB#')), {
        timeout: 20_000,
      })
      .toBe(true);
    closeGate();

    // Act: the second run streams its tool call, then waits for the model; B leaves meanwhile.
    a.ws.send(
      JSON.stringify({
        action: 'run',
        requestId: 'second',
        agent: 'demo',
        sessionId,
        input: 'weather in Paris?',
      }),
    );
    await expect
      .poll(() => a.messages.filter((m) => m.type === 'accepted').length, { timeout: 20_000 })
      .toBe(2);
    const runId = a.messages.filter((m) => m.type === 'accepted')[1].runId;
    await expect.poll(() => gate.waiting, { timeout: 20_000 }).toBe(1);
    await expect
      .poll(() => eventsOf(b, runId).some((e: any) => e.type === 'tool-call-result'), {
        timeout: 20_000,
      })
      .toBe(true);
    b.ws.close();
    await expect.poll(() => mentioning(bId), { timeout: 20_000 }).toEqual([]);
    gate.open();
    await expect.poll(() => finished(a, runId), { timeout: 20_000 }).toBe(true);

    // Assess: A saw the whole run, in order, and B the same events up to where it left.
    const batches = batchesOf(a, runId);
    expect(batches.map((m) => m.seq)).toEqual(batches.map((_, i) => i));
    const events = eventsOf(a, runId);
    expect(events[0].type).toBe('run-started');
    expect(events.at(-1)).toMatchObject({
      type: 'run-finished',
      reply: { text: expect.stringContaining('Paris') },
    });
    const bBatches = batchesOf(b, runId);
    expect(bBatches.length).toBeGreaterThan(0);
    expect(bBatches).toEqual(batches.slice(0, bBatches.length));
    expect(bBatches.length).toBeLessThan(batches.length);
    expect(a.messages.filter((m) => m.type === 'error' || m.message !== undefined)).toEqual([]);
    expect(events.filter((e: any) => e.type === 'run-error')).toEqual([]);
    expect(await mentioning(aId as string)).not.toEqual([]);
    a.ws.close();
  });
});
