/**
 * `npm run load`: a bounded load test through the whole local stack (lib/local startLocalStack:
 * the functions/ handlers, dynalite, local-aws-sqs, the API Gateway emulation) with a paced
 * scripted model (bench/pacing-proxy.ts: a first-byte delay, then deltas at a real model's rate).
 * LOAD_SOCKETS WebSocket clients, each its own session, run turns back to back until LOAD_TURNS
 * are done. Prints a progress line every tenth of the turns, then p50/p99 time to first token
 * (run sent → first text delta at the client) and turn latency (run sent → run-finished), errors
 * by code, and the requests one turn made (Lambda invocations, SQS, DynamoDB, PostToConnection).
 * CPU-heavy: run it at a quiet moment, not beside the test suite.
 *
 *   npm run load
 *   LOAD_SOCKETS=20 LOAD_TURNS=100 LOAD_TTFT_MS=300 LOAD_TOKENS=40 LOAD_TPS=50 npm run load
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import WebSocket from 'ws';
import { startLocalStack } from '../lib/local/stack.js';
import { startScriptedModelServer } from '../lib/testing/index.js';
import { startPacingProxy } from './pacing-proxy.js';

export interface LoadOptions {
  sockets: number;
  turns: number;
  /** The model's first-byte delay per response, and its deltas per second. */
  ttftMs: number;
  tokens: number;
  tokensPerSecond: number;
  /** A turn not finished within this counts as error `timeout`. */
  turnTimeoutMs: number;
  progress?: (line: string) => void;
}

export interface LoadReport {
  sockets: number;
  turns: number;
  finished: number;
  seconds: number;
  firstTokenMs: { p50: number; p99: number };
  turnMs: { p50: number; p99: number };
  errors: Record<string, number>;
  /** Per finished turn. */
  perTurn: {
    lambda: number;
    sqs: number;
    dynamodb: number;
    postToConnection: number;
    /** WebSocket payload bytes the client received (events, replies) and sent. */
    bytesToClient: number;
    bytesFromClient: number;
  };
  lambdaByFunction: Record<string, number>;
}

const counts = {
  sqs: 0,
  dynamodb: 0,
  post: 0,
  bytesIn: 0,
  bytesOut: 0,
  lambda: {} as Record<string, number>,
};
let patched = false;

/** Counts every request the stack's SDK clients make (the pollers' empty receives apart). */
function patchClients(): void {
  if (patched) return;
  patched = true;
  const wrap = (proto: any, count: (command: any, output: any) => void) => {
    const send = proto.send;
    proto.send = async function (this: unknown, command: any, ...rest: unknown[]) {
      const output = await send.call(this, command, ...rest);
      count(command, output);
      return output;
    };
  };
  wrap(SQSClient.prototype, (command, output) => {
    const empty = command.constructor.name === 'ReceiveMessageCommand' && !output?.Messages?.length;
    if (!empty) counts.sqs++;
  });
  for (const proto of [DynamoDBClient.prototype, DynamoDBDocumentClient.prototype]) {
    wrap(proto, () => counts.dynamodb++);
  }
  wrap(ApiGatewayManagementApiClient.prototype, (command) => {
    if (command.constructor.name === 'PostToConnectionCommand') counts.post++;
  });
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
};

/** One socket: turns back to back on its own session until the shared budget is spent. */
async function client(
  url: string,
  next: () => boolean,
  record: (result: { firstTokenMs?: number; turnMs?: number; error?: string }) => void,
  timeoutMs: number,
): Promise<void> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const sessionId = `load-${randomBytes(6).toString('hex')}`;
  let waiting: ((message: any) => void) | undefined;
  ws.on('message', (data) => {
    const text = String(data);
    counts.bytesIn += Buffer.byteLength(text);
    waiting?.(JSON.parse(text));
  });
  try {
    while (next()) {
      const requestId = `r-${randomBytes(6).toString('hex')}`;
      const started = performance.now();
      let runId: string | undefined;
      let firstTokenMs: number | undefined;
      const outcome = await new Promise<{ error?: string }>((resolve) => {
        const timer = setTimeout(() => resolve({ error: 'timeout' }), timeoutMs);
        const done = (result: { error?: string }) => {
          clearTimeout(timer);
          resolve(result);
        };
        waiting = (m) => {
          if (m.requestId === requestId && m.type === 'accepted') runId = m.runId;
          else if (m.requestId === requestId && m.type === 'error') done({ error: m.code });
          for (const e of m.type === 'events' ? (m.events ?? []) : []) {
            if (e.runId !== runId) continue;
            if (e.type === 'text-delta' && firstTokenMs === undefined) {
              firstTokenMs = performance.now() - started;
            }
            if (e.type === 'run-finished') done({});
            if (e.type === 'run-error') done({ error: e.code ?? 'run-error' });
          }
        };
        const frame = JSON.stringify({
          action: 'run',
          requestId,
          agent: 'demo',
          sessionId,
          input: 'Hi',
        });
        counts.bytesOut += Buffer.byteLength(frame);
        ws.send(frame);
      });
      record({
        ...outcome,
        ...(firstTokenMs !== undefined ? { firstTokenMs } : {}),
        ...(outcome.error ? {} : { turnMs: performance.now() - started }),
      });
    }
  } finally {
    ws.close();
  }
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  patchClients();
  const answer = Array.from({ length: options.tokens }, (_, i) => ` w${i}`).join('');
  const model = await startScriptedModelServer({ fallback: { text: answer }, chunkSize: 4 });
  const pacer = await startPacingProxy(model.url);
  pacer.firstByteMs = options.ttftMs;
  pacer.pace = options.tokensPerSecond;
  process.env.OPENAI_BASE_URL = pacer.url;
  process.env.OPENAI_API_KEY = 'offline';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const stack = await startLocalStack({
    port: 0,
    onInvoke: (name) => {
      counts.lambda[name] = (counts.lambda[name] ?? 0) + 1;
    },
  });
  Object.assign(counts, { sqs: 0, dynamodb: 0, post: 0, bytesIn: 0, bytesOut: 0, lambda: {} });
  const firstTokens: number[] = [];
  const turns: number[] = [];
  const errors: Record<string, number> = {};
  let started = 0;
  let done = 0;
  const began = performance.now();
  const step = Math.max(1, Math.floor(options.turns / 10));
  try {
    const url = `${stack.wsUrl}?token=${stack.token}`;
    await Promise.all(
      Array.from({ length: options.sockets }, () =>
        client(
          url,
          () => started++ < options.turns,
          (r) => {
            done++;
            if (r.firstTokenMs !== undefined) firstTokens.push(r.firstTokenMs);
            if (r.turnMs !== undefined) turns.push(r.turnMs);
            if (r.error) errors[r.error] = (errors[r.error] ?? 0) + 1;
            if (done % step === 0 || done === options.turns) {
              const s = (performance.now() - began) / 1000;
              options.progress?.(
                `load: ${done}/${options.turns} turns, ${s.toFixed(1)} s, ${(done / s).toFixed(1)} turns/s, turn p50 ${percentile(turns, 50)} ms, errors ${Object.values(errors).reduce((a, b) => a + b, 0)}`,
              );
            }
          },
          options.turnTimeoutMs,
        ),
      ),
    );
    // A turn's end reaches the client before its worker returns (the post-turn steps), and a
    // close before its $disconnect: let them land so every request is counted.
    const settled = () =>
      (counts.lambda.worker ?? 0) >= turns.length &&
      (counts.lambda['ws-disconnect'] ?? 0) >= options.sockets;
    for (let waited = 0; !settled() && waited < 10_000; waited += 100) await sleep(100);
  } finally {
    await stack.stop();
    await pacer.close();
    await model.close();
  }
  const finished = turns.length;
  const per = (n: number) => Math.round((n / Math.max(1, finished)) * 10) / 10;
  const lambda = Object.values(counts.lambda).reduce((a, b) => a + b, 0);
  return {
    sockets: options.sockets,
    turns: options.turns,
    finished,
    seconds: Math.round((performance.now() - began) / 100) / 10,
    firstTokenMs: { p50: percentile(firstTokens, 50), p99: percentile(firstTokens, 99) },
    turnMs: { p50: percentile(turns, 50), p99: percentile(turns, 99) },
    errors,
    perTurn: {
      lambda: per(lambda),
      sqs: per(counts.sqs),
      dynamodb: per(counts.dynamodb),
      postToConnection: per(counts.post),
      bytesToClient: Math.round(counts.bytesIn / Math.max(1, finished)),
      bytesFromClient: Math.round(counts.bytesOut / Math.max(1, finished)),
    },
    lambdaByFunction: Object.fromEntries(
      Object.entries(counts.lambda).map(([name, n]) => [name, per(n)]),
    ),
  };
}

export function formatLoad(r: LoadReport, o: LoadOptions): string {
  const cpu = cpus();
  return [
    `load: ${r.sockets} sockets, ${r.turns} turns (${r.finished} finished) in ${r.seconds} s = ${(r.finished / r.seconds).toFixed(1)} turns/s`,
    `model: ${o.ttftMs} ms to first byte, ${o.tokens} tokens at ${o.tokensPerSecond}/s`,
    `first token: p50 ${r.firstTokenMs.p50} ms, p99 ${r.firstTokenMs.p99} ms`,
    `turn:        p50 ${r.turnMs.p50} ms, p99 ${r.turnMs.p99} ms`,
    `errors by code: ${JSON.stringify(r.errors)}`,
    'requests: connects and disconnects are spread over the turns of a socket; the local poller hands the worker up to 10 run jobs per invocation (on AWS batch 1: one worker invocation per turn)',
    `per turn: ${r.perTurn.lambda} Lambda invocations ${JSON.stringify(r.lambdaByFunction)}, ${r.perTurn.sqs} SQS requests, ${r.perTurn.dynamodb} DynamoDB requests, ${r.perTurn.postToConnection} PostToConnection, ${r.perTurn.bytesToClient} B to the client, ${r.perTurn.bytesFromClient} B from it`,
    `machine: ${cpu.length} × ${cpu[0]?.model ?? '?'}, ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const options: LoadOptions = {
    sockets: env('LOAD_SOCKETS', 200),
    turns: env('LOAD_TURNS', 1000),
    ttftMs: env('LOAD_TTFT_MS', 300),
    tokens: env('LOAD_TOKENS', 40),
    tokensPerSecond: env('LOAD_TPS', 50),
    turnTimeoutMs: env('LOAD_TURN_TIMEOUT_MS', 120_000),
    progress: (line) => process.stdout.write(`${line}\n`),
  };
  const report = await runLoad(options);
  process.stdout.write(`${formatLoad(report, options)}\n`);
  process.exit(Object.keys(report.errors).length > 0 ? 1 : 0);
}
