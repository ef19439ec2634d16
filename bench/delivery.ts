/**
 * Delivery: how long a streamed event takes from leaving the runner to arriving at a WebSocket
 * client, how long the first words take from the model to the client, and how many SQS messages
 * and PostToConnection calls 1,000 streamed tokens cost, for `direct` and `sqs-fanout` delivery,
 * through the whole local stack (`startLocalStack`: the real functions/ handlers, local-aws-sqs
 * with pollers that wake on send, dynalite, API Gateway emulation).
 *
 * DELIVERY_MODE is read when the function modules load (once per process), so the parent runs
 * each mode in a child process of its own and prints them side by side (a progress line a run).
 *
 *   npm run bench:delivery
 *   EVENT_BATCH_MAX_DELAY_MS=50 npm run bench:delivery   # another batching window
 *
 * What is measured (see docs/benchmarks.md#delivery):
 * - "left the runner": the worker hands every event of `runtime.stream` to its `EventBatcher`
 *   (`await batcher.push(event)`); this bench wraps `EventBatcher.prototype.push` in the child
 *   and stamps each text delta there. The client stamps it when its WebSocket frame arrives. Both
 *   stamps are `performance.now()` of the same process, matched by the delta's text (every token
 *   is unique: ` t0000`, ` t0001`, …).
 * - first token: from the pacing proxy writing the answer's first delta (the model's first token)
 *   to the client receiving it, and to the client receiving the last one, per run; the
 *   `BENCH_FIRST_RUNS` runs stream 200-token answers at `BENCH_TOKENS_PER_SECOND`.
 * - calls: `SQSClient.prototype.send` and `ApiGatewayManagementApiClient.prototype.send` are
 *   wrapped in the child, so every SendMessage (by queue) and PostToConnection of the handlers'
 *   own clients is counted.
 * - the model: the scripted model server streams one 6-character delta per token; a pacing proxy
 *   (bench/pacing-proxy.ts) in front of it releases the deltas at `BENCH_TOKENS_PER_SECOND` (a
 *   model's speed) or all at once (`burst`), and stamps when each delta left the model.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { SQSClient } from '@aws-sdk/client-sqs';
import WebSocket from 'ws';
import type { StreamEvent } from '../lib/core/events.js';
import { startLocalStack } from '../lib/local/stack.js';
import { startScriptedModelServer } from '../lib/testing/index.js';
import { DEFAULT_MAX_DELAY_MS, EventBatcher } from '../lib/transport/batcher.js';
import { stampStoredWrites } from './first-send-stamps.js';
import { startPacingProxy } from './pacing-proxy.js';

const MODES = ['direct', 'sqs-fanout'] as const;
type Mode = (typeof MODES)[number];
/** The local pollers wake on send (lib/local/sqs-poller.ts), as Lambda's event source does. */
const VARIANTS: { mode: Mode; label: string }[] = [
  { mode: 'direct', label: 'direct' },
  { mode: 'sqs-fanout', label: 'sqs-fanout' },
];

const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 1000);
const TOKENS_PER_SECOND = Number(process.env.BENCH_TOKENS_PER_SECOND ?? 100);
/** The model paces the paced runs are streamed at, one phase each (tokens per second). */
const RATES = (process.env.BENCH_RATES ?? '20,50,100')
  .split(',')
  .map(Number)
  .filter((r) => r > 0);
/** Tokens per paced run: 20 tok/s takes PACED_TOKENS / 20 seconds. */
const PACED_TOKENS = Number(process.env.BENCH_PACED_TOKENS ?? 400);
/** Paced runs take PACED_TOKENS / rate seconds each, so few of them by default. */
const PACED_RUNS = Number(process.env.BENCH_PACED_RUNS ?? 1);
const WARMUP_TOKENS = 200;
/** The first-token runs: answers of this many tokens at TOKENS_PER_SECOND. */
const FIRST_TOKENS = 200;
const FIRST_RUNS = Number(process.env.BENCH_FIRST_RUNS ?? 5);
/** One token = one delta of this many characters: a space, `t`, four base-36 digits. */
const TOKEN_WIDTH = 6;

interface Stats {
  p50: number;
  p99: number;
  max: number;
}

interface PhaseResult {
  pace: string;
  runs: number;
  tokens: number;
  /** Runner (batcher push) → WebSocket client, ms. */
  delivery: Stats;
  /** Model server write → runner, ms (the part of a real model stream this bench adds). */
  modelToRunner: Stats;
  /** Model's first token → client's first token, ms, one per run. */
  firstToken: number[];
  /** Model's first token → client's last token, ms, one per run. */
  lastToken: number[];
  /** Model's first token → the worker handing it to delivery (SendMessage/Batch or post), ms. */
  firstSent: number[];
  /** Of that: model → the stored-events write began, and that write, ms (first-send-stamps.ts). */
  firstToStore: number[];
  firstStore: number[];
  eventsMessages: number;
  /** SendMessage + SendMessageBatch calls to the events queue. */
  eventsCalls: number;
  posts: number;
  frames: number;
  runJobs: number;
}

interface ChildResult {
  label: string;
  mode: Mode;
  node: string;
  phases: PhaseResult[];
}

const token = (i: number) => ` t${i.toString(36).padStart(4, '0')}`;

function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN };
}

// ---------------------------------------------------------------- child: one delivery mode

async function child(mode: Mode, label: string): Promise<ChildResult> {
  process.env.DELIVERY_MODE = mode;
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TABLE_NAME', 'DYNAMODB_ENDPOINT']) {
    delete process.env[key];
  }

  // Where each delta left the runner (the worker's batcher) and the model, by `runId|delta`.
  const leftRunner = new Map<string, number>();
  const push = EventBatcher.prototype.push;
  EventBatcher.prototype.push = function (this: EventBatcher, event: StreamEvent) {
    if (event.type === 'text-delta')
      leftRunner.set(`${this.runId}|${event.delta}`, performance.now());
    return push.call(this, event);
  };
  const counts = { sends: new Map<string, number>(), calls: new Map<string, number>(), posts: 0 };
  // When the first token of the run left the worker for delivery (its first send carrying it).
  const firstToken = `"delta":"${token(0)}"`;
  let firstSentAt: number | undefined;
  const stored = stampStoredWrites(firstToken);
  const stampFirst = (body: string) => {
    if (firstSentAt === undefined && body.includes(firstToken)) firstSentAt = performance.now();
  };
  const sqsSend = SQSClient.prototype.send;
  SQSClient.prototype.send = function (this: SQSClient, command: any, ...rest: any[]) {
    const name = command?.constructor?.name;
    const url = String(command.input?.QueueUrl);
    const add = (map: Map<string, number>, n: number) => map.set(url, (map.get(url) ?? 0) + n);
    if (name === 'SendMessageCommand') {
      stampFirst(String(command.input?.MessageBody));
      add(counts.sends, 1);
      add(counts.calls, 1);
    } else if (name === 'SendMessageBatchCommand') {
      const entries = command.input?.Entries ?? [];
      for (const entry of entries) stampFirst(String(entry.MessageBody));
      add(counts.sends, entries.length);
      add(counts.calls, 1);
    }
    return (sqsSend as any).call(this, command, ...rest);
  } as typeof sqsSend;
  const managementSend = ApiGatewayManagementApiClient.prototype.send;
  ApiGatewayManagementApiClient.prototype.send = function (
    this: ApiGatewayManagementApiClient,
    command: any,
    ...rest: any[]
  ) {
    // Only `events` messages: ws-message also posts one `accepted` per run.
    const data = command?.input?.Data;
    if (
      command?.constructor?.name === 'PostToConnectionCommand' &&
      String(data).startsWith('{"type":"events"')
    ) {
      stampFirst(String(data));
      counts.posts += 1;
    }
    return (managementSend as any).call(this, command, ...rest);
  } as typeof managementSend;

  let tokens = 0;
  const model = await startScriptedModelServer({
    chunkSize: TOKEN_WIDTH,
    fallback: () => ({ text: Array.from({ length: tokens }, (_, i) => token(i)).join('') }),
  });
  const proxy = await startPacingProxy(model.url);
  process.env.OPENAI_BASE_URL = proxy.url;
  process.env.OPENAI_API_KEY = 'bench';
  const stack = await startLocalStack();

  const ws = new WebSocket(`${stack.wsUrl}?token=${stack.token}`);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const arrived = new Map<string, number>();
  let frames = 0;
  let finished: ((runId: string) => void) | undefined;
  ws.on('message', (data) => {
    const now = performance.now();
    const message = JSON.parse(String(data));
    if (message.type === 'error') throw new Error(`run refused: ${String(data)}`);
    if (message.type !== 'events') return;
    frames += 1;
    for (const event of message.events as StreamEvent[]) {
      if (event.type === 'text-delta') arrived.set(`${event.runId}|${event.delta}`, now);
      if (event.type === 'run-error') throw new Error(`run failed: ${event.message}`);
      if (event.type === 'run-finished') finished?.(event.runId);
    }
  });

  let runNumber = 0;
  async function runOnce(count: number, pace: number): Promise<string> {
    tokens = count;
    proxy.pace = pace;
    runNumber += 1;
    const done = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('run timed out')),
        30_000 + (pace > 0 ? (count / pace) * 1000 : 0),
      );
      finished = (runId) => {
        clearTimeout(timer);
        resolve(runId);
      };
    });
    ws.send(
      JSON.stringify({
        action: 'run',
        requestId: `bench-${runNumber}`,
        agent: 'demo',
        sessionId: `bench-${mode}-${runNumber}`,
        input: `Stream ${count} tokens.`,
      }),
    );
    return done;
  }

  async function phase(
    label: string,
    runs: number,
    pace: number,
    count = TOKENS,
  ): Promise<PhaseResult> {
    const delivery: number[] = [];
    const modelToRunner: number[] = [];
    const firstToken: number[] = [];
    const lastToken: number[] = [];
    const firstSent: number[] = [];
    const firstToStore: number[] = [];
    const firstStore: number[] = [];
    counts.sends.clear();
    counts.calls.clear();
    counts.posts = 0;
    frames = 0;
    for (let run = 0; run < runs; run++) {
      leftRunner.clear();
      arrived.clear();
      proxy.written.clear();
      firstSentAt = undefined;
      stored.reset();
      const runId = await runOnce(count, pace);
      const began = proxy.written.get(token(0)) as number;
      firstSent.push((firstSentAt ?? NaN) - began);
      const split = stored.read(began);
      firstToStore.push(split.toStore);
      firstStore.push(split.store);
      firstToken.push((arrived.get(`${runId}|${token(0)}`) as number) - began);
      lastToken.push((arrived.get(`${runId}|${token(count - 1)}`) as number) - began);
      process.send?.({ progress: `${label}: run ${run + 1}/${runs} done` });
      for (let i = 0; i < count; i++) {
        const key = `${runId}|${token(i)}`;
        const left = leftRunner.get(key);
        const at = arrived.get(key);
        const wrote = proxy.written.get(token(i));
        if (left === undefined || at === undefined || wrote === undefined) {
          throw new Error(`token ${i} of run ${runId} was not seen on every side`);
        }
        delivery.push(at - left);
        modelToRunner.push(left - wrote);
      }
    }
    return {
      pace: label,
      runs,
      tokens: runs * count,
      delivery: stats(delivery),
      modelToRunner: stats(modelToRunner),
      firstToken,
      lastToken,
      firstSent,
      firstToStore,
      firstStore,
      eventsMessages: counts.sends.get(stack.queues.events) ?? 0,
      eventsCalls: counts.calls.get(stack.queues.events) ?? 0,
      posts: counts.posts,
      frames,
      runJobs: counts.sends.get(stack.queues.run) ?? 0,
    };
  }

  try {
    await runOnce(WARMUP_TOKENS, 0);
    const phases = RUNS > 0 ? [await phase('burst', RUNS, 0)] : [];
    for (const rate of PACED_RUNS > 0 ? RATES : []) {
      phases.push(await phase(`${rate} tok/s`, PACED_RUNS, rate, PACED_TOKENS));
    }
    if (FIRST_RUNS > 0 && TOKENS_PER_SECOND > 0) {
      const label = `${FIRST_TOKENS} tok at ${TOKENS_PER_SECOND}/s`;
      phases.push(await phase(label, FIRST_RUNS, TOKENS_PER_SECOND, FIRST_TOKENS));
    }
    return { label, mode, node: process.version, phases };
  } finally {
    ws.close();
    await stack.stop();
    await proxy.close();
    await model.close();
  }
}

// ---------------------------------------------------------------- parent: both modes, one table

function runChild(variant: (typeof VARIANTS)[number]): Promise<ChildResult> {
  const { mode } = variant;
  const file = fileURLToPath(import.meta.url);
  const args = ['--mode', mode];
  const proc: ChildProcess = fork(file, args, {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  proc.stdout?.on('data', (data: Buffer) => {
    output += data.toString();
  });
  proc.stderr?.on('data', (data: Buffer) => {
    output += data.toString();
  });
  return new Promise((resolve, reject) => {
    let result: ChildResult | undefined;
    proc.on('message', (message: ChildResult | { progress: string }) => {
      if ('progress' in message) console.log(`  ${variant.label}: ${message.progress}`);
      else result = message;
    });
    proc.on('exit', (code) => {
      if (result) resolve(result);
      else reject(new Error(`${mode} child exited with ${code}:\n${output.slice(-4000)}`));
    });
  });
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const perThousand = (count: number, tokens: number) => ((count * 1000) / tokens).toFixed(1);

async function parent(): Promise<void> {
  const window = process.env.EVENT_BATCH_MAX_DELAY_MS ?? `${DEFAULT_MAX_DELAY_MS} (default)`;
  console.log(
    `delivery: ${RUNS} burst runs of ${TOKENS} tokens, ${PACED_RUNS} run(s) of ${PACED_TOKENS} tokens at each of ${RATES.join(', ')} tok/s, ${FIRST_RUNS} runs of ${FIRST_TOKENS} tokens at ${TOKENS_PER_SECOND} tok/s, per mode (+1 warm-up); window ceiling ${window} ms; Node ${process.version}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const results: ChildResult[] = [];
  for (const variant of VARIANTS) {
    console.log(`${variant.label}: starting the local stack…`);
    results.push(await runChild(variant));
  }
  const header = [
    'mode',
    'model pace',
    'tokens',
    'runner→client p50',
    'p99',
    'max',
    'SQS events msgs /1k tok',
    'SQS send calls /1k tok',
    'PostToConnection /1k tok',
    'fewer than 1 msg/token',
    'model→runner p50',
  ];
  const rows = results.flatMap((result) =>
    result.phases.map((p) => {
      // The Python kernel sends one SQS message (and so one post) per token; we send one per batch.
      const messages = result.mode === 'direct' ? p.posts : p.eventsMessages;
      return [
        result.label,
        p.pace,
        String(p.tokens),
        ms(p.delivery.p50),
        ms(p.delivery.p99),
        ms(p.delivery.max),
        perThousand(p.eventsMessages, p.tokens),
        perThousand(p.eventsCalls, p.tokens),
        perThousand(p.posts, p.tokens),
        `${(p.tokens / messages).toFixed(1)}x`,
        ms(p.modelToRunner.p50),
      ];
    }),
  );
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  printFirstTokens(results);
  for (const result of results) {
    for (const p of result.phases) {
      if (p.frames !== p.posts) {
        console.log(`note: ${result.label} ${p.pace}: ${p.frames} frames for ${p.posts} posts`);
      }
    }
  }
}

/** Model's first token → client's first token, and → the last token, per mode and pace. */
function printFirstTokens(results: ChildResult[]): void {
  const header = [
    'mode',
    'model pace',
    'runs',
    'first delta model→sent p50',
    'max',
    'of it: model→store start p50',
    'stored write p50',
    'first token p50',
    'max',
    'last token p50',
    'first/last',
  ];
  console.log('');
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const result of results) {
    for (const p of result.phases) {
      const first = stats(p.firstToken);
      const last = stats(p.lastToken);
      const sent = stats(p.firstSent);
      const row = [
        result.label,
        p.pace,
        String(p.runs),
        ms(sent.p50),
        ms(sent.max),
        ms(stats(p.firstToStore).p50),
        ms(stats(p.firstStore).p50),
        ms(first.p50),
        ms(first.max),
        ms(last.p50),
        `${((100 * first.p50) / last.p50).toFixed(1)} %`,
      ];
      console.log(`| ${row.join(' | ')} |`);
    }
  }
}

const modeFlag = process.argv.indexOf('--mode');
if (modeFlag >= 0) {
  const mode = process.argv[modeFlag + 1] as Mode;
  if (!MODES.includes(mode)) throw new Error(`--mode must be one of ${MODES.join(', ')}`);
  const variant = VARIANTS.find((v) => v.mode === mode);
  const result = await child(mode, variant?.label ?? mode);
  // Handles of the stack's clients (keep-alive sockets) may linger: exit once the result is out.
  process.send?.(result, () => process.exit(0));
} else {
  await parent();
}
