/**
 * Stored events' cost: the extra DynamoDB writes, write units and bytes a streamed turn pays for
 * its events window (one conditional put per delivered message, lib/stores/dynamodb/
 * run-event-store.ts), for a turn of about 1,200 characters of answer delivered in 10, 30 and 90
 * messages (bench:delivery's counts at slow to fast windows), and what that is per 1,000 turns
 * at on-demand prices (bench/cost.ts PRICES).
 *
 *   npx tsx bench/events-cost.ts      (also printed by `npm run bench:store`)
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { StreamEvent } from '../lib/core/index.js';
import { startDynalite } from '../lib/local/dynalite.js';
import { createDynamoClient, createTable, DynamoRunEventStore } from '../lib/stores/index.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 5);
const MESSAGES = [10, 30, 90];
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
      counter.bytes += Buffer.byteLength(JSON.stringify(input.Item ?? {}));
      return result;
    },
    { step: 'initialize', name: 'countEventsCost' },
  );
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
  console.log(`\nStored events per streamed turn (${backend}, ${TURNS} turns each)\n`);
  console.log('| messages / turn | extra writes | extra WCU | item bytes | $ per 1,000 turns |');
  console.log('|---|---|---|---|---|');
  for (const messages of MESSAGES) {
    const client = createDynamoClient({ endpoint });
    const tableName = `bench-events-${randomBytes(4).toString('hex')}`;
    await createTable(client, tableName);
    const counter: Counter = { writes: 0, wcu: 0, bytes: 0 };
    count(client, counter);
    const store = new DynamoRunEventStore({ client, tableName });
    for (let t = 0; t < TURNS; t++) {
      const runId = `run-${t}`;
      for (const [seq, events] of turnOf(runId, messages).entries()) {
        await store.append({ sessionId: 's1', runId, seq, events }, { owner: 'bench' });
      }
    }
    const per = (n: number) => n / TURNS;
    console.log(
      `| ${per(counter.writes).toFixed(0)} | ${per(counter.writes).toFixed(0)} | ` +
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
