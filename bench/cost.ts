/**
 * `npm run bench:cost`: the AWS bill per 1,000 streamed turns (a 500-token answer, one tool call,
 * one turn in ten paused and approved), from requests COUNTED in the local stack
 * (bench/cost-measure.ts: the real functions/ handlers, dynalite, local-aws-sqs, the API Gateway
 * emulation) at us-east-1 list prices, for `sqs-fanout` and `direct` delivery, and for a
 * one-message-per-token design (a session write per token, clients polling every 5 s) built from
 * the same measurements. Each mode runs in a child process (DELIVERY_MODE is read at module load).
 *
 *   npm run bench:cost
 *   BENCH_TURNS=40 BENCH_TOKENS_PER_SECOND=50 npm run bench:cost
 *
 * Measured: Lambda invocations and handler wall time (the worker's includes waiting for the
 * model, paced as a real one: BENCH_TTFT_SECONDS before each response, BENCH_TOKENS_PER_SECOND),
 * DynamoDB RRU/WRU (ConsumedCapacity), SQS requests, PostToConnection calls, client frames,
 * connection minutes. Computed: the whole one-message-per-token column, from those counts.
 */
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configFromContext } from '../infra/config.js';
import { tunedFunctions } from '../infra/functions.js';
import type { Counts, Measured } from './cost-measure.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 20);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 500);
const PAUSE_EVERY = 10;
const TURNS_PER_CONNECTION = 10;
const POLLS = 20;
/** The model, as Lambda waits for it: time to first token per call, then tokens per second. */
const TTFT_SECONDS = Number(process.env.BENCH_TTFT_SECONDS ?? 0.5);
const TOKENS_PER_SECOND = Number(process.env.BENCH_TOKENS_PER_SECOND ?? 50);
const POLL_SECONDS = 5;
/** What the per-token design's consumer takes per invocation (SQS batch size). */
const TOKEN_BATCH = 10;

/**
 * us-east-1 list prices, USD (aws.amazon.com/{lambda,dynamodb,sqs,api-gateway}/pricing/ as
 * published in 2025; DynamoDB on-demand after the 50% cut of 1 Nov 2024). Free tiers ignored.
 * Lambda on arm64 (infra/constructs/kernel-function.ts). Re-check before quoting.
 */
export const PRICES = {
  lambdaRequest: 0.2 / 1e6,
  lambdaGbSecondArm: 0.0000133334,
  dynamoWru: 0.625 / 1e6,
  dynamoRru: 0.125 / 1e6,
  sqsStandardRequest: 0.4 / 1e6,
  sqsFifoRequest: 0.5 / 1e6,
  wsMessage: 1.0 / 1e6, // per 32 KB message, first billion
  wsConnectionMinute: 0.25 / 1e6,
  httpApiRequest: 1.0 / 1e6, // per 512 KB request, first 300 million
} as const;

/** Each function's memory as a default deploy sizes it (infra/config-memory.ts). */
const MEMORY = new Map(
  tunedFunctions(configFromContext({})).map((f) => [f.name as string, f.memorySize]),
);

/** Quantities for 1,000 turns. */
interface Usage {
  lambdaRequests: number;
  gbSeconds: number;
  rru: number;
  wru: number;
  sqsFifo: number;
  sqsStandard: number;
  wsMessages: number;
  connectionMinutes: number;
  httpRequests: number;
}

function gbSecondsOf(lambda: Counts['lambda']): number {
  return Object.entries(lambda).reduce(
    (sum, [name, c]) => sum + (c.ms / 1000) * ((MEMORY.get(name) ?? 1024) / 1024),
    0,
  );
}

function sqsOf(counts: Counts) {
  const entries = Object.entries(counts.sqs);
  const fifo = entries.filter(([q]) => q.endsWith('.fifo')).reduce((s, [, n]) => s + n, 0);
  const all = entries.reduce((s, [, n]) => s + n, 0);
  return { fifo, standard: all - fifo };
}

/** A measured mode, scaled to 1,000 turns; the worker also bills the model's time. */
function measuredUsage(m: Measured): Usage {
  const k = 1000 / m.turns;
  const c = m.turnsCounts;
  const sqs = sqsOf(c);
  const invocations = Object.values(c.lambda).reduce((s, l) => s + l.invocations, 0);
  return {
    lambdaRequests: invocations * k,
    gbSeconds: gbSecondsOf(c.lambda) * k,
    rru: c.rru * k,
    wru: c.wru * k,
    sqsFifo: sqs.fifo * k,
    sqsStandard: sqs.standard * k,
    wsMessages: (c.postToConnection + c.wsInbound) * k,
    connectionMinutes: (c.connectionMs / 60_000) * k,
    httpRequests: c.httpRequests * k,
  };
}

/**
 * The one-message-per-token design from the sqs-fanout measurement: no WebSocket; every token one
 * FIFO message, consumed TOKEN_BATCH at a time by a function that writes the session once per
 * token; the client starts the turn over HTTP and polls GET /sessions/{id} every 5 s.
 */
function perTokenUsage(fanout: Measured): Usage {
  const k = 1000 / fanout.turns;
  const c = fanout.turnsCounts;
  const lambda = { ...c.lambda };
  for (const gone of ['fanout', 'ws-connect', 'ws-disconnect', 'authorizer']) delete lambda[gone];
  const consumer = c.lambda.fanout ?? { invocations: 1, ms: 0 };
  const batches = Math.ceil(TOKENS / TOKEN_BATCH);
  // Polled every 5 s from the POST until it sees the turn finished.
  const pollsPerTurn = Math.ceil(fanout.turnMs / 1000 / POLL_SECONDS);
  const poll = fanout.pollCounts;
  const pollMs = Object.values(poll.lambda).reduce((s, l) => s + l.ms, 0) / fanout.polls;
  const saveWru = c.sessionSaves > 0 ? c.sessionWriteWru / c.sessionSaves : 1;
  const events = Object.entries(c.sqs)
    .filter(([q]) => q.startsWith('events'))
    .reduce((s, [, n]) => s + n, 0);
  const sqs = sqsOf(c);
  const paused = fanout.paused / fanout.turns;
  return {
    lambdaRequests:
      Object.values(lambda).reduce((s, l) => s + l.invocations, 0) * k +
      1000 * (batches + pollsPerTurn),
    gbSeconds:
      gbSecondsOf(lambda) * k +
      1000 *
        batches *
        (consumer.ms / consumer.invocations / 1000) *
        ((MEMORY.get('fanout') ?? 256) / 1024) +
      1000 * pollsPerTurn * (pollMs / 1000) * ((MEMORY.get('http') ?? 1024) / 1024),
    rru: c.rru * k + 1000 * pollsPerTurn * (poll.rru / fanout.polls),
    wru: c.wru * k + 1000 * TOKENS * saveWru,
    // Each token: one SendMessage; each batch: one ReceiveMessage and one DeleteMessageBatch.
    sqsFifo: (sqs.fifo - events) * k + 1000 * (TOKENS + 2 * batches),
    sqsStandard: sqs.standard * k,
    wsMessages: 0,
    connectionMinutes: 0,
    httpRequests: 1000 * (1 + paused + pollsPerTurn),
  };
}

function dollars(u: Usage) {
  return {
    'Lambda requests': u.lambdaRequests * PRICES.lambdaRequest,
    'Lambda GB-s': u.gbSeconds * PRICES.lambdaGbSecondArm,
    'DynamoDB reads': u.rru * PRICES.dynamoRru,
    'DynamoDB writes': u.wru * PRICES.dynamoWru,
    'SQS requests': u.sqsFifo * PRICES.sqsFifoRequest + u.sqsStandard * PRICES.sqsStandardRequest,
    'API Gateway WebSocket messages': u.wsMessages * PRICES.wsMessage,
    'API Gateway connection minutes': u.connectionMinutes * PRICES.wsConnectionMinute,
    'API Gateway HTTP requests': u.httpRequests * PRICES.httpApiRequest,
  };
}

function runChild(mode: string): Promise<Measured> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      BENCH_COST_CHILD: mode,
      DELIVERY_MODE: mode,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let result: Measured | undefined;
    child.on('message', (message) => {
      result = message as Measured;
    });
    child.on('exit', (code) =>
      result ? resolve(result) : reject(new Error(`${mode} child exited ${code}`)),
    );
  });
}

function table(columns: [string, Usage][]): string {
  const n = (v: number, digits = 0) => v.toLocaleString('en-US', { maximumFractionDigits: digits });
  const quantity: [string, (u: Usage) => string][] = [
    ['Lambda requests', (u) => n(u.lambdaRequests)],
    ['Lambda GB-s (worker waiting on the model included)', (u) => n(u.gbSeconds)],
    ['DynamoDB RRU', (u) => n(u.rru)],
    ['DynamoDB WRU', (u) => n(u.wru)],
    ['SQS requests (FIFO + standard)', (u) => `${n(u.sqsFifo)} + ${n(u.sqsStandard)}`],
    ['WebSocket messages (in + out)', (u) => n(u.wsMessages)],
    ['connection minutes', (u) => n(u.connectionMinutes)],
    ['HTTP API requests', (u) => n(u.httpRequests)],
  ];
  const rows = [`| per 1,000 turns | ${columns.map(([name]) => name).join(' | ')} |`];
  rows.push(`|---|${columns.map(() => '---|').join('')}`);
  for (const [label, get] of quantity) {
    rows.push(`| ${label} | ${columns.map(([, u]) => get(u)).join(' | ')} |`);
  }
  const bills = columns.map(([, u]) => dollars(u));
  for (const key of Object.keys(bills[0] ?? {})) {
    const cells = bills.map((b) => `$${(b[key as keyof typeof b] as number).toFixed(4)}`);
    rows.push(`| $ ${key} | ${cells.join(' | ')} |`);
  }
  const totals = bills.map((b) => Object.values(b).reduce((s, v) => s + v, 0));
  rows.push(`| **$ total** | ${totals.map((t) => `**$${t.toFixed(3)}**`).join(' | ')} |`);
  return rows.join('\n');
}

if (process.env.BENCH_COST_CHILD) {
  const { measure } = await import('./cost-measure.js');
  const result = await measure({
    mode: process.env.BENCH_COST_CHILD,
    turns: TURNS,
    tokens: TOKENS,
    pauseEvery: PAUSE_EVERY,
    turnsPerConnection: TURNS_PER_CONNECTION,
    polls: POLLS,
    ttftMs: TTFT_SECONDS * 1000,
    tokensPerSecond: TOKENS_PER_SECOND,
  });
  process.send?.(result, () => process.exit(0));
} else {
  const fanout = await runChild('sqs-fanout');
  const direct = await runChild('direct');
  console.log(
    `cost: ${TURNS} turns per mode (${TOKENS}-token answers, one tool call, 1 in ${PAUSE_EVERY} paused and approved, ${TURNS_PER_CONNECTION} turns per connection and session), scaled to 1,000; the model ${TTFT_SECONDS} s to first token, ${TOKENS_PER_SECOND} tokens/s; a turn took ${(fanout.turnMs / 1000).toFixed(1)} s (sqs-fanout) and ${(direct.turnMs / 1000).toFixed(1)} s (direct) at the client; us-east-1 list prices, arm64`,
  );
  const columns: [string, Usage][] = [
    ['sqs-fanout (measured)', measuredUsage(fanout)],
    ['direct (measured)', measuredUsage(direct)],
    ['per-token + 5 s polls (computed)', perTokenUsage(fanout)],
  ];
  console.log(table(columns));
  const total = (u: Usage) => Object.values(dollars(u)).reduce((s, v) => s + v, 0);
  const [sqsFanout, directMode, perToken] = columns.map(([, u]) => total(u)) as number[];
  const worker = MEMORY.get('worker');
  console.log(
    `\nthe one-message-per-token design costs ${((perToken ?? 0) / (sqsFanout ?? 1)).toFixed(1)}× sqs-fanout and ${((perToken ?? 0) / (directMode ?? 1)).toFixed(1)}× direct (aim ≥ 5×); the worker billed at ${worker} MB (infra/config-memory.ts)`,
  );
  // The stored events (issue 30) are in the WRU above; their share of each bill, printed apart.
  const events = (m: Measured, bill: number | undefined) => {
    const usd = (m.turnsCounts.eventsWru / m.turns) * 1000 * PRICES.dynamoWru;
    return `${m.mode} $${usd.toFixed(4)} (+${((100 * usd) / ((bill ?? 0) - usd)).toFixed(1)}% on the bill without them)`;
  };
  console.log(
    `stored events for reconnects, per 1,000 turns: ${events(fanout, sqsFanout)}, ${events(direct, directMode)}`,
  );
  const per = (m: Measured) => {
    const c = m.turnsCounts;
    const lambda = Object.entries(c.lambda)
      .map(
        ([name, l]) =>
          `${name} ${(l.invocations / m.turns).toFixed(2)}× ${(l.ms / l.invocations).toFixed(0)} ms`,
      )
      .join(', ');
    return `${m.mode} per turn: ${lambda}; SQS ${JSON.stringify(c.sqs)} over ${m.turns} turns (${c.idleReceives} empty receives not billed per turn); ${(c.postToConnection / m.turns).toFixed(1)} posts; session save ${(c.sessionWriteWru / Math.max(1, c.sessionSaves)).toFixed(1)} WRU; peak RSS of the whole local stack ${m.peakRssMb.toFixed(0)} MB (idle ${m.idleRssMb.toFixed(0)} MB)`;
  };
  console.log(`\n${per(fanout)}\n${per(direct)}`);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, Node ${process.version}`,
  );
}
