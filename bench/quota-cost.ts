/**
 * Fair use's cost per turn: DynamoDB requests and consumed capacity of one sync turn through the
 * front door (sessions, lease, run records, idempotency and, when on, the quota counters, all in
 * one table), with quotas off and on side by side, counted as bench/store-cost.ts counts
 * (ReturnConsumedCapacity TOTAL on every request). "on, new minute" moves the clock a minute per
 * turn: every admission then starts a minute (a refused conditional update, a read, a write).
 * The queued path costs the same counter requests (admission in ws-message, end in the worker).
 *
 *   npm run bench:quotas      BENCH_TURNS=20 BENCH_DYNAMODB_LOCAL=0 npm run bench:quotas
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { FairUse } from '../lib/app/fair-use.js';
import { FrontDoor } from '../lib/app/front-door.js';
import { Agent, type Runner, Runtime } from '../lib/core/index.js';
import { type LocalEndpoint as Endpoint, startDynalite } from '../lib/local/dynalite.js';
import { startDynamoDbLocal } from '../lib/local/dynamodb-local.js';
import {
  createDynamoClient,
  createTable,
  DynamoIdempotencyStore,
  DynamoPausedRunStore,
  DynamoQuotaStore,
  DynamoRunRecordStore,
  DynamoSessionLock,
  DynamoSessionStore,
} from '../lib/stores/index.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 10);
const READS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand']);

interface Counter {
  reads: number;
  writes: number;
  rcu: number;
  wcu: number;
}
const zero = (): Counter => ({ reads: 0, writes: 0, rcu: 0, wcu: 0 });

/** Counts every request of a client (into each counter) and the capacity DynamoDB reports. */
function count(client: DynamoDBClient, ...counters: Counter[]): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      let result: Awaited<ReturnType<typeof next>> | undefined;
      let failed: unknown;
      try {
        result = await next(args);
      } catch (err) {
        failed = err;
      }
      const consumed = (result?.output as { ConsumedCapacity?: { CapacityUnits?: number } })
        ?.ConsumedCapacity;
      // A refused conditional write is billed as a write of the item (1 WCU up to 1 KB).
      const units = failed ? 1 : (consumed?.CapacityUnits ?? 0);
      for (const counter of counters) {
        if (READS.has(context.commandName ?? '')) {
          counter.reads++;
          counter.rcu += units;
        } else {
          counter.writes++;
          counter.wcu += units;
        }
      }
      if (failed) throw failed;
      return result as Awaited<ReturnType<typeof next>>;
    },
    { step: 'initialize', name: 'countQuotaCost' },
  );
}

/** A one-step answer that reports usage, as a framework runner does. */
const runner: Runner<null> = {
  name: 'metered',
  supportsStreaming: false,
  supportsPause: false,
  reservedRunOptions: {},
  async *stream(input) {
    yield* [];
    return {
      status: 'completed' as const,
      text: 'ok',
      usage: { inputTokens: 120, outputTokens: 30 },
      state: { n: 1 },
      context: input.context,
    };
  },
};

type Mode = 'off' | 'on' | 'on, new minute';

async function measure(endpoint: string, mode: Mode) {
  const total = zero();
  const counters = zero();
  const client = createDynamoClient({ endpoint });
  const quotaClient = createDynamoClient({ endpoint });
  count(client, total);
  count(quotaClient, total, counters);
  const tableName = `bench-${randomBytes(4).toString('hex')}`;
  await createTable(client, tableName);
  const stores = { client, tableName };
  let clock = Date.now();
  const now = () => clock;
  const sessions = new DynamoSessionStore(stores);
  const runtime = new Runtime({
    sessions,
    lock: new DynamoSessionLock(stores),
    agents: [new Agent({ name: 'bench', runner, native: null })],
  });
  const fairUse =
    mode === 'off'
      ? undefined
      : new FairUse(new DynamoQuotaStore({ client: quotaClient, tableName, now }), {
          limits: { runsInFlight: 10, runsPerMinute: 1_000, tokensPerDay: 10_000_000 },
          queuedLeaseMs: 1_800_000,
          connectionLeaseMs: 7_500_000,
          now,
        });
  const door = new FrontDoor({
    sessions,
    pausedRuns: new DynamoPausedRunStore(stores),
    runs: new DynamoRunRecordStore(stores),
    idempotency: new DynamoIdempotencyStore(stores),
    agents: { has: (name) => name === 'bench', cards: () => [] },
    turns: runtime,
    ...(fairUse ? { fairUse } : {}),
  });
  const turn = (i: number) =>
    door.runNow({
      principal: 'alice',
      requestId: `r-${i}`,
      agent: 'bench',
      sessionId: 's1',
      input: 'hi',
    });
  await turn(-1);
  Object.assign(total, zero());
  Object.assign(counters, zero());
  for (let i = 0; i < TURNS; i++) {
    if (mode === 'on, new minute') clock += 60_000;
    await turn(i);
  }
  client.destroy();
  quotaClient.destroy();
  return { total, counters };
}

const targets: [string, () => Promise<Endpoint>][] = [['dynalite', startDynalite]];
if (process.env.BENCH_DYNAMODB_LOCAL !== '0') targets.push(['DynamoDB Local', startDynamoDbLocal]);

const per = (n: number) => (n / TURNS).toFixed(2);
console.log(`\nFair use: DynamoDB per sync turn through the front door (${TURNS} turns)\n`);
console.log(
  '| backend | quotas | reads | writes | RCU | WCU | of which quota reads | quota writes | quota RCU | quota WCU |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
const extra: string[] = [];
/** On-demand us-east-1 prices, USD per request unit (the same as bench/cost.ts's PRICES). */
const WRU = 0.625 / 1e6;
const RRU = 0.125 / 1e6;
const usd = (c: Counter) => ((c.wcu * WRU + c.rcu * RRU) * (1e6 / TURNS)).toFixed(2);
for (const [name, start] of targets) {
  const endpoint = await start();
  try {
    for (const mode of ['off', 'on', 'on, new minute'] as const) {
      const { total: t, counters: q } = await measure(endpoint.url, mode);
      if (mode === 'on') extra.push(`${name}: ${usd(q)} USD per million turns for the counters`);
      console.log(
        `| ${name} | ${mode} | ${per(t.reads)} | ${per(t.writes)} | ${per(t.rcu)} | ${per(t.wcu)} | ${per(q.reads)} | ${per(q.writes)} | ${per(q.rcu)} | ${per(q.wcu)} |`,
      );
    }
  } finally {
    await endpoint.stop();
  }
}
console.log(`\n${extra.join('\n')}`);
