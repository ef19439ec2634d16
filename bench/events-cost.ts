/**
 * Stored events' cost: the extra DynamoDB writes, write units and bytes a streamed turn pays for
 * its events window (written behind delivery: one conditional put per stored range of messages,
 * lib/app/jobs/write-behind.ts, lib/stores/dynamodb/run-event-store.ts), for a turn of about 1,200 characters of answer delivered in 10, 30 and 90
 * messages (bench:delivery's counts at slow to fast windows), and what that is per 1,000 turns
 * at on-demand prices (bench/cost.ts PRICES). The turn's messages are spread over TURN_SECONDS
 * (a simulated clock) and flushed every EVENTS_FLUSH_MS (default 1.5 s).
 *
 *   npx tsx bench/events-cost.ts      (also printed by `npm run bench:store`)
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { WriteBehind } from '../lib/app/jobs/write-behind.js';
import { DEFAULT_EVENTS_FLUSH_MS } from '../lib/app/ports/run-events.js';
import type { StreamEvent } from '../lib/core/index.js';
import { startDynalite } from '../lib/local/dynalite.js';
import { createDynamoClient, createTable, DynamoRunEventStore } from '../lib/stores/index.js';
import { MemoryDelivery } from '../lib/transport/delivery.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 5);
const MESSAGES = [10, 30, 90];
const TURN_SECONDS = Number(process.env.BENCH_TURN_SECONDS ?? 6);
const FLUSH_MS = Number(process.env.EVENTS_FLUSH_MS ?? DEFAULT_EVENTS_FLUSH_MS);
const WRU_PRICE = 0.625 / 1e6;
const ANSWER = 'The agent kernel stores each delivered batch so a client can reconnect. '.repeat(
  17,
);

interface Counter {
  writes: number;
  wcu: number;
  bytes: number;
}

function count(client: DynamoDBClient, counter: Counter): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } })
        .ConsumedCapacity;
      counter.writes++;
      counter.wcu += consumed?.CapacityUnits ?? 0;
      counter.bytes += itemBytes(input.Item as Record<string, unknown> | undefined);
      return result;
    },
    { step: 'initialize', name: 'countEventsCost' },
  );
}

/** An item's size as DynamoDB counts it: attribute names plus values (binary as its bytes). */
function itemBytes(item: Record<string, unknown> | undefined): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item ?? {})) {
    bytes += name.length;
    if (value instanceof Uint8Array) bytes += value.length;
    else if (typeof value === 'string') bytes += Buffer.byteLength(value);
    else bytes += 8;
  }
  return bytes;
}

/** One turn's events split into `messages` messages, as the batcher would deliver them. */
function turnOf(runId: string, messages: number): StreamEvent[][] {
  const deltas: StreamEvent[] = [];
  for (let i = 0; i < ANSWER.length; i += 8) {
    deltas.push({
      type: 'text-delta',
      runId,
      messageId: `${runId}:m`,
      delta: ANSWER.slice(i, i + 8),
    });
  }
  const per = Math.ceil(deltas.length / (messages - 2));
  const out: StreamEvent[][] = [
    [
      { type: 'run-started', runId, sessionId: 's1', agent: 'bench' },
      { type: 'message-start', runId, messageId: `${runId}:m` },
    ],
  ];
  for (let i = 0; i < deltas.length; i += per) out.push(deltas.slice(i, i + per));
  const reply = { status: 'completed', runId, sessionId: 's1', agent: 'bench', text: ANSWER };
  out.push([
    { type: 'message-end', runId, messageId: `${runId}:m` },
    { type: 'run-finished', runId, reply } as StreamEvent,
  ]);
  return out;
}

export async function eventsCost(backend: string, endpoint: string): Promise<void> {
  console.log(
    `\nStored events per streamed turn (${backend}, ${TURNS} turns each, a ${TURN_SECONDS} s turn, flushed every ${FLUSH_MS} ms)\n`,
  );
  console.log('| messages / turn | extra writes | extra WCU | item bytes | $ per 1,000 turns |');
  console.log('|---|---|---|---|---|');
  for (const messages of MESSAGES) {
    const client = createDynamoClient({ endpoint });
    const tableName = `bench-events-${randomBytes(4).toString('hex')}`;
    await createTable(client, tableName);
    const counter: Counter = { writes: 0, wcu: 0, bytes: 0 };
    count(client, counter);
    const store = new DynamoRunEventStore({ client, tableName });
    let clock = 0;
    for (let t = 0; t < TURNS; t++) {
      const runId = `run-${t}`;
      const behind = new WriteBehind(
        new MemoryDelivery(),
        store,
        { owner: 'bench' },
        FLUSH_MS,
        () => clock,
      );
      for (const [seq, events] of turnOf(runId, messages).entries()) {
        clock += (TURN_SECONDS * 1000) / messages;
        await behind.deliver({ type: 'events', sessionId: 's1', runId, seq, events });
      }
    }
    const per = (n: number) => n / TURNS;
    console.log(
      `| ${messages} | ${per(counter.writes).toFixed(1)} | ` +
        `${per(counter.wcu).toFixed(1)} | ${per(counter.bytes).toFixed(0)} | ` +
        `$${(per(counter.wcu) * 1000 * WRU_PRICE).toFixed(4)} |`,
    );
    client.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dynalite = await startDynalite();
  try {
    await eventsCost('dynalite', dynalite.url);
  } finally {
    await dynalite.stop();
  }
}
