/**
 * Store cost: DynamoDB requests and consumed capacity per turn, counted by an SDK middleware
 * (ReturnConsumedCapacity TOTAL on every request), for sessions of 10 KB, 300 KB and 2 MB of
 * chat-like text and of incompressible base64, through a Runtime with the DynamoDB session store
 * and lease. Aim: one read and one conditional write per turn for the store below 350 KB. Then
 * the run journal's extra requests and bytes per turn with 0, 1, 5 and 20 tool calls
 * (journal-cost.ts), and the stored events' extra writes per streamed turn (events-cost.ts).
 *
 *   npm run bench:store       BENCH_TURNS=10 BENCH_DYNAMODB_LOCAL=0 npm run bench:store
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Agent, type Runner, type RunnerInput, Runtime } from '../lib/core/index.js';
import { type LocalEndpoint as Endpoint, startDynalite } from '../lib/local/dynalite.js';
import { startDynamoDbLocal } from '../lib/local/dynamodb-local.js';
import {
  createDynamoClient,
  createTable,
  DynamoSessionLock,
  DynamoSessionStore,
} from '../lib/stores/index.js';
import { eventsCost } from './events-cost.js';
import { journalCost } from './journal-cost.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 5);
const SIZES = [10_000, 300_000, 2_000_000];
const READS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand']);

interface Counter {
  reads: number;
  writes: number;
  rcu: number;
  wcu: number;
}
const zero = (): Counter => ({ reads: 0, writes: 0, rcu: 0, wcu: 0 });

/** Counts every request of a client and the capacity DynamoDB reports for it. */
function count(client: DynamoDBClient, counter: Counter): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const read = READS.has(context.commandName ?? '');
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const units = [consumed]
        .flat()
        .reduce(
          (sum: number, c) => sum + ((c as { CapacityUnits?: number })?.CapacityUnits ?? 0),
          0,
        );
      if (read) {
        counter.reads++;
        counter.rcu += units;
      } else {
        counter.writes++;
        counter.wcu += units;
      }
      return result;
    },
    { step: 'initialize', name: 'countStoreCost' },
  );
}

const WORDS =
  'the agent runtime keeps every session in one table and streams typed events to clients that subscribed while a tool waits for approval'.split(
    ' ',
  );

/** About `bytes` of JSON state: chat-like text, or random base64 that barely compresses. */
function state(bytes: number, kind: 'text' | 'random', turn: number) {
  const history: string[] = [];
  let size = 0;
  while (size < bytes) {
    const message =
      kind === 'random'
        ? randomBytes(750).toString('base64')
        : Array.from({ length: 160 }, (_, i) =>
            i % 9 === 0 ? randomBytes(4).toString('hex') : WORDS[(i * 7 + size) % WORDS.length],
          ).join(' ');
    history.push(message);
    size += message.length + 3;
  }
  return { turn, history };
}

/** A runner that rewrites a session slot of a fixed size every turn. */
function sizedRunner(bytes: number, kind: 'text' | 'random'): Runner<null> {
  let turn = 0;
  const run = async (input: RunnerInput<null>) => ({
    status: 'completed' as const,
    text: 'ok',
    state: state(bytes, kind, ++turn),
    context: input.context,
  });
  return {
    name: 'sized',
    supportsStreaming: false,
    supportsPause: false,
    reservedRunOptions: {},
    async *stream(input) {
      yield* [];
      return await run(input);
    },
  };
}

async function measure(endpoint: string, bytes: number, kind: 'text' | 'random') {
  const storeClient = createDynamoClient({ endpoint });
  const lockClient = createDynamoClient({ endpoint });
  const tableName = `bench-${randomBytes(4).toString('hex')}`;
  await createTable(storeClient, tableName);
  const store = zero();
  const lease = zero();
  count(storeClient, store);
  count(lockClient, lease);
  const sessions = new DynamoSessionStore({ client: storeClient, tableName });
  const runtime = new Runtime({
    sessions,
    lock: new DynamoSessionLock({ client: lockClient, tableName }),
    agents: [new Agent({ name: 'bench', runner: sizedRunner(bytes, kind), native: null })],
  });
  await runtime.run('bench', 's1', 'first turn creates the session');
  Object.assign(store, zero());
  Object.assign(lease, zero());
  const started = performance.now();
  for (let i = 0; i < TURNS; i++) await runtime.run('bench', 's1', `turn ${i}`);
  const ms = (performance.now() - started) / TURNS;
  const per = (n: number) => (n / TURNS).toFixed(1);
  const totals = { store: { ...store }, lease: { ...lease } };
  const json = JSON.stringify((await sessions.load('s1'))?.data).length;
  storeClient.destroy();
  lockClient.destroy();
  return { json, ...totals, ms, per };
}

const targets: [string, () => Promise<Endpoint>][] = [['dynalite', startDynalite]];
if (process.env.BENCH_DYNAMODB_LOCAL !== '0') targets.push(['DynamoDB Local', startDynamoDbLocal]);

console.log(`\nStore cost per turn (${TURNS} turns after the first, per size and content)\n`);
console.log(
  '| backend | state JSON | content | store reads | store writes | store RCU | store WCU | lease writes | lease WCU | ms/turn |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const [name, start] of targets) {
  const endpoint = await start();
  try {
    for (const kind of ['text', 'random'] as const) {
      for (const bytes of SIZES) {
        const { json, store, lease, ms, per } = await measure(endpoint.url, bytes, kind);
        console.log(
          `| ${name} | ${(json / 1000).toFixed(0)} KB | ${kind} | ${per(store.reads)} | ` +
            `${per(store.writes)} | ${per(store.rcu)} | ${per(store.wcu)} | ` +
            `${per(lease.writes)} | ${per(lease.wcu)} | ${ms.toFixed(0)} |`,
        );
      }
    }
    await journalCost(name, endpoint.url);
    await eventsCost(name, endpoint.url);
  } finally {
    await endpoint.stop();
  }
}
