/**
 * Journal cost: the run journal's extra DynamoDB requests and bytes per turn with 0, 1, 5 and 20
 * tool calls, next to the session store's own: one model step asking for all of them, or a model
 * step per call (each response recorded before its call runs). A response and finished outcomes
 * ride on the next write, so k calls cost at most k+1 writes. A fresh run (runtime-generated id)
 * reads no journal; a run whose id the caller passed (a queued job, which may be a redelivery)
 * reads it once (one Query).
 *
 *   npx tsx bench/journal-cost.ts      (also printed by `npm run bench:store`)
 *   BENCH_TURNS=2 npx tsx bench/journal-cost.ts
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import {
  Agent,
  type JsonValue,
  type Runner,
  type RunnerInput,
  Runtime,
  tryToolContext,
} from '../lib/core/index.js';
import { startDynalite } from '../lib/local/dynalite.js';
import {
  createDynamoClient,
  createTable,
  DynamoRunJournalStore,
  DynamoSessionStore,
} from '../lib/stores/index.js';
import { defineTool, Executor } from '../lib/tools/index.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 5);
const READS = new Set(['GetItemCommand', 'QueryCommand']);

interface Counter {
  reads: number;
  writes: number;
  bytes: number;
}

/** Counts requests and the bytes each one sends (its input as JSON). */
function count(client: DynamoDBClient): Counter {
  const counter: Counter = { reads: 0, writes: 0, bytes: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (READS.has(context.commandName ?? '')) counter.reads++;
      else counter.writes++;
      counter.bytes += JSON.stringify(args.input, (_k, v) =>
        v instanceof Uint8Array ? 'x'.repeat(v.length) : v,
      ).length;
      return next(args);
    },
    { step: 'initialize', name: 'countJournalCost' },
  );
  return counter;
}

const lookup = defineTool({
  name: 'lookup',
  description: 'A tool with an effect',
  input: z.object({ id: z.number() }),
  handler: ({ id }) => ({ id, status: 'done', at: '2026-12-01T00:00:00Z' }),
});

type Shape = 'one step' | 'a step per call';

/**
 * A framework that asks for `calls` tool calls in one model step (or one per step), the way
 * runners journal it: the response recorded, then the calls run through the Executor.
 */
function toolRunner(calls: number, shape: Shape, executor: Executor): Runner<null> {
  return {
    name: 'bench',
    supportsStreaming: true,
    supportsPause: false,
    reservedRunOptions: {},
    async *stream(input: RunnerInput<null>) {
      yield* [];
      const journal = tryToolContext()?.journal;
      const ids = Array.from({ length: calls }, () => `call_${randomBytes(12).toString('hex')}`);
      const steps = shape === 'one step' ? (calls > 0 ? [ids] : []) : ids.map((id) => [id]);
      for (const step of steps) {
        const response = {
          role: 'assistant',
          tool_calls: step.map((id, i) => ({ id, name: 'lookup', arguments: `{"id":${i}}` })),
        };
        await journal?.recordModel(randomBytes(16).toString('hex'), response as JsonValue);
        for (const [i, id] of step.entries()) {
          await executor.runSpec(lookup, { id: i }, {}, { callId: id });
        }
      }
      return { status: 'completed' as const, text: 'ok', state: {}, context: input.context };
    },
  };
}

async function measure(endpoint: string, calls: number, shape: Shape, callerRunId: boolean) {
  const sessionClient = createDynamoClient({ endpoint });
  const journalClient = createDynamoClient({ endpoint });
  const tableName = `bench-${randomBytes(4).toString('hex')}`;
  await createTable(sessionClient, tableName);
  const runtime = new Runtime({
    sessions: new DynamoSessionStore({ client: sessionClient, tableName }),
    journal: new DynamoRunJournalStore({ client: journalClient, tableName }),
    agents: [
      new Agent({ name: 'b', runner: toolRunner(calls, shape, new Executor()), native: null }),
    ],
  });
  await runtime.run('b', 's1', 'first turn creates the session');
  const session = count(sessionClient);
  const journal = count(journalClient);
  for (let i = 0; i < TURNS; i++) {
    await runtime.run('b', 's1', `turn ${i}`, callerRunId ? { runId: `job-${i}` } : {});
  }
  sessionClient.destroy();
  journalClient.destroy();
  const per = (n: number) => (n / TURNS).toFixed(1);
  return { session, journal, per };
}

/** Prints the journal's cost per turn against `endpoint` (a markdown table). */
export async function journalCost(name: string, endpoint: string): Promise<void> {
  console.log(`\nRun journal cost per turn on ${name} (${TURNS} turns after the first)\n`);
  console.log(
    '| tool calls | model steps | run id | session reads | session writes | journal reads | journal writes | bound (k+1) | journal bytes sent |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  const cases: [number, Shape][] = [
    [0, 'one step'],
    [1, 'one step'],
    [5, 'one step'],
    [20, 'one step'],
    [5, 'a step per call'],
    [20, 'a step per call'],
  ];
  for (const [calls, shape] of cases) {
    for (const callerRunId of [false, true]) {
      const { session, journal, per } = await measure(endpoint, calls, shape, callerRunId);
      const steps = shape === 'one step' ? Math.min(calls, 1) : calls;
      console.log(
        `| ${calls} | ${steps} | ${callerRunId ? 'caller (replay)' : 'generated'} | ` +
          `${per(session.reads)} | ${per(session.writes)} | ${per(journal.reads)} | ` +
          `${per(journal.writes)} | ${calls + 1} | ${per(journal.bytes)} |`,
      );
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dynalite = await startDynalite();
  try {
    await journalCost('dynalite', dynalite.url);
  } finally {
    await dynalite.stop();
  }
}
