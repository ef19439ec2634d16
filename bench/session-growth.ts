/**
 * Session growth: bytes the session store writes and reads per turn at turns 1, 50 and 200 of
 * one session on dynalite, on a warm instance (one store for the whole session: its cache holds
 * the session) and a cold one (a new store for every turn). A turn is what the turn engine does:
 * load, append the turn's messages (a user message and a reply, ~900 bytes of chat-like JSON) to
 * the runner slot's history, save at the loaded version. Bytes written are the HTTP request
 * bodies of write requests; bytes read are the JSON of read responses (both as the SDK sees them).
 * Aim: warm bytes per turn at turn 200 within 1.2× of turn 1.
 *
 *   npm run bench:session       BENCH_SESSION_TURNS=200 npm run bench:session
 *   BENCH_SESSION_TURN_BROTLI=0 npm run bench:session   turn items compressed only past 2 KB,
 *                                                       as the head (what brotli saves)
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type JsonValue, newSession } from '../lib/core/index.js';
import { startDynalite } from '../lib/local/dynalite.js';
import { createDynamoClient, createTable, DynamoSessionStore } from '../lib/stores/index.js';

const TURNS = Number(process.env.BENCH_SESSION_TURNS ?? 200);
// An explicit compressAbove turns off the turn items' "brotli whenever smaller" rule.
const OPTIONS = process.env.BENCH_SESSION_TURN_BROTLI === '0' ? { compressAbove: 2048 } : {};
const AT = [1, 50, 200].filter((t) => t <= TURNS);
const READS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand']);
const WORDS =
  'the agent keeps every session in one table and streams typed events to clients'.split(' ');

interface Bytes {
  written: number;
  read: number;
  writes: number;
  reads: number;
}

function count(client: DynamoDBClient, bytes: Bytes): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (READS.has(context.commandName ?? '')) {
        bytes.reads++;
        bytes.read += JSON.stringify(result.output, replacer).length;
      }
      return result;
    },
    { step: 'initialize', name: 'countReads' },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!READS.has(context.commandName ?? '')) {
        const body = (args.request as { body?: unknown }).body;
        bytes.writes++;
        bytes.written +=
          typeof body === 'string'
            ? Buffer.byteLength(body)
            : body instanceof Uint8Array
              ? body.length
              : 0;
      }
      return next(args);
    },
    { step: 'finalizeRequest', name: 'countWrites' },
  );
}

/** Binary attributes as their byte length, so "read" counts what came over the wire. */
function replacer(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? 'x'.repeat(Math.ceil((value.length * 4) / 3)) : value;
}

function text(turn: number, words: number): string {
  return Array.from({ length: words }, (_, i) =>
    i % 11 === 0 ? randomBytes(3).toString('hex') : WORDS[(i + turn) % WORDS.length],
  ).join(' ');
}

async function session(endpoint: string, warm: boolean) {
  const client = createDynamoClient({ endpoint });
  const tableName = `growth-${randomBytes(4).toString('hex')}`;
  await createTable(client, tableName);
  const bytes: Bytes = { written: 0, read: 0, writes: 0, reads: 0 };
  count(client, bytes);
  const shared = new DynamoSessionStore({ client, tableName, ...OPTIONS });
  const rows: { turn: number; bytes: Bytes; json: number }[] = [];
  let data = newSession('s1', Date.now(), 'alice');
  let version = 0;
  for (let turn = 1; turn <= TURNS; turn++) {
    const store = warm ? shared : new DynamoSessionStore({ client, tableName, ...OPTIONS });
    Object.assign(bytes, { written: 0, read: 0, writes: 0, reads: 0 });
    const loaded = await store.load('s1');
    if (loaded) ({ data, version } = loaded);
    const slot = (data.state.chat as { history?: JsonValue[] } | undefined) ?? {};
    const history = [
      ...(slot.history ?? []),
      { role: 'user', content: text(turn, 20) },
      { role: 'assistant', content: text(turn, 90), id: `msg_${turn}` },
    ];
    data = {
      ...data,
      state: { ...data.state, chat: { schemaVersion: 1, history } },
      turns: turn,
      lastReply: { runId: `run-${turn}`, text: 'ok' },
      updatedAt: Date.now(),
    };
    version = await store.save(data, version);
    if (AT.includes(turn)) {
      rows.push({ turn, bytes: { ...bytes }, json: JSON.stringify(data).length });
    }
  }
  client.destroy();
  return rows;
}

const endpoint = await startDynalite();
try {
  console.log(`\nSession growth on dynalite: one session, ${TURNS} turns, bytes per turn\n`);
  console.log('| instance | turn | session JSON | bytes written | bytes read | writes | reads |');
  console.log('|---|---|---|---|---|---|---|');
  const ratios: string[] = [];
  for (const warm of [true, false]) {
    const rows = await session(endpoint.url, warm);
    for (const { turn, bytes, json } of rows) {
      console.log(
        `| ${warm ? 'warm' : 'cold'} | ${turn} | ${(json / 1000).toFixed(1)} KB | ` +
          `${bytes.written} | ${bytes.read} | ${bytes.writes} | ${bytes.reads} |`,
      );
    }
    const first = rows[0]?.bytes;
    const last = rows.at(-1)?.bytes;
    if (first && last) {
      const per = (b: Bytes) => b.written + b.read;
      ratios.push(
        `${warm ? 'warm' : 'cold'}: bytes per turn at turn ${rows.at(-1)?.turn} / turn 1 = ` +
          `${(per(last) / per(first)).toFixed(2)}×`,
      );
    }
  }
  console.log(`\n${ratios.join('\n')}\n`);
} finally {
  await endpoint.stop();
}
