/**
 * Tracing overhead: the same turn (a model call, a tool call through the Executor, a second model
 * call) through three Runtimes: the no-op tracer, the cloudwatch tracer (segments over UDP to a
 * stand-in daemon in another process, EMF and log lines written to /dev/null) and the otel
 * backend (`otlp` preset: OTLP/HTTP JSON to a receiver in another process, flushed after every
 * turn as `withLogging` flushes before a Lambda answers), interleaved turn by turn (a new
 * seeded order every turn, bench/order.ts); the three Runtimes differ only in their tracer.
 * Each repetition prints the medians of wall time and of CPU time of this process (steadier
 * on a busy machine; it includes the in-process model server, the same in every arm) and their
 * ratios to tracing off (aim: at most 1.05); the summary gives the median ratio over the
 * repetitions with its range, and the load average around the run.
 *
 *   npm run bench:tracing            BENCH_TURNS=400 BENCH_REPS=5 npm run bench:tracing
 *   BENCH_XRAY=0 npm run bench:tracing     (EMF and logs only: the cost of the UDP sends apart)
 *   BENCH_ONLY=otel npm run bench:tracing   (tracing off and the arms listed: for --cpu-prof)
 *   BENCH_CONTROL=1 npm run bench:tracing  (+ a second untraced arm, the noise floor; a tracer
 *     whose spans do nothing, the Runtime's traced paths alone; otel with no export)
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { OpenAIProvider, Agent as SdkAgent } from '@openai/agents';
import OpenAI from 'openai';
import * as z from 'zod';
import { OPENAI_INTEGRATION, OpenAIModule } from '../lib/frameworks/openai/index.js';
import { InMemorySessionStore, noopTracer, Runtime, type Tracer } from '../lib/index.js';
import { startScriptedModelServer } from '../lib/testing/index.js';
import { defineTool, Executor } from '../lib/tools/index.js';
import { CloudWatchTracer, OtelTracer } from '../lib/tracing/index.js';
import { shuffler } from './order.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const REPS = Number(process.env.BENCH_REPS ?? 3);
const CONTROL = process.env.BENCH_CONTROL === '1';
const WARMUP = 20;
const TURNS_PER_SESSION = 8;

// The daemon is another process on Lambda too: receiving must not cost this one.
const daemon = spawn(
  process.execPath,
  [
    '-e',
    `const s = require('node:dgram').createSocket('udp4'); let n = 0;
     s.on('message', () => { n++; });
     s.bind(0, '127.0.0.1', () => console.log(s.address().port));
     process.on('SIGTERM', () => { console.error(n); process.exit(0); });`,
  ],
  { stdio: ['ignore', 'pipe', 'pipe'] },
);
const daemonPort = await new Promise<number>((resolve) =>
  daemon.stdout.once('data', (data) => resolve(Number(String(data).trim()))),
);

// The collector is another process too (the ADOT layer's, or a vendor's endpoint).
const collector = spawn(
  process.execPath,
  [
    '-e',
    `let n = 0; const s = require('node:http').createServer((req, res) => {
       req.on('data', () => {}); req.on('end', () => { n++; res.writeHead(200).end('{}'); });
     });
     s.listen(0, '127.0.0.1', () => console.log(s.address().port));
     process.on('SIGTERM', () => { console.error(n); process.exit(0); });`,
  ],
  { stdio: ['ignore', 'pipe', 'pipe'] },
);
const collectorPort = await new Promise<number>((resolve) =>
  collector.stdout.once('data', (data) => resolve(Number(String(data).trim()))),
);
const otel = new OtelTracer({
  env: {
    AGENT_KERNEL_TRACING: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
  },
});

const server = await startScriptedModelServer();
const client = new OpenAI({ apiKey: 'bench', baseURL: server.url, maxRetries: 0 });
const devNull = openSync('/dev/null', 'w');
let lines = 0;
const traced = new CloudWatchTracer({
  env: {
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemonPort}`,
    AGENT_KERNEL_XRAY: process.env.BENCH_XRAY === '0' ? 'false' : 'true',
  },
  sink: (line) => {
    lines += 1;
    writeSync(devNull, `${line}\n`);
  },
});

function makeRuntime(tracer: Tracer): Runtime {
  const weather = defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    input: z.object({ city: z.string() }),
    handler: ({ city }) => ({ city, forecast: 'sunny' }),
  });
  const agent = new SdkAgent({
    name: 'bench',
    instructions: 'Answer briefly.',
    model: 'scripted-model',
    tools: [OPENAI_INTEGRATION.exportTool(weather, { executor: new Executor() })],
  });
  const provider = new OpenAIProvider({ openAIClient: client, useResponses: true });
  return new Runtime({
    sessions: new InMemorySessionStore(),
    modules: [new OpenAIModule([agent], { runConfig: { modelProvider: provider } })],
    tracer,
  });
}

/** A tracer whose spans record nothing: what the Runtime's traced paths cost on their own. */
const BARE_SPAN = {
  setAttributes() {},
  setPayload() {},
  recordError() {},
  end() {},
  traceHeader: () => undefined,
};
const bare: Tracer = { startSpan: () => BARE_SPAN };
/** The otel backend with an exporter that drops every batch: its span work without the export. */
const otelSpansOnly = new OtelTracer({
  env: { AGENT_KERNEL_TRACING: 'otlp' },
  exporters: [{ export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} }],
});

const arms: Record<string, Runtime> = {
  off: makeRuntime(noopTracer),
  cloudwatch: makeRuntime(traced),
  otel: makeRuntime(otel),
};
// BENCH_CONTROL=1: a second untraced arm (the noise floor of identical arms) and the two splits.
if (CONTROL) {
  arms['off-again'] = makeRuntime(noopTracer);
  arms['bare-spans'] = makeRuntime(bare);
  arms['otel-no-export'] = makeRuntime(otelSpansOnly);
}
const flushers: Record<string, () => Promise<void>> = {
  otel: () => otel.flush(),
  'otel-no-export': () => otelSpansOnly.flush(),
};
// BENCH_ONLY=otel (comma list): only those arms next to tracing off, e.g. under --cpu-prof.
const ONLY = process.env.BENCH_ONLY?.split(',').map((a) => a.trim());
if (ONLY)
  for (const arm of Object.keys(arms)) if (arm !== 'off' && !ONLY.includes(arm)) delete arms[arm];
const ARMS = Object.keys(arms);
type ArmName = string;

async function turn(arm: ArmName, mode: 'run' | 'stream', n: number, prefix: string) {
  server.push(
    { toolCalls: [{ id: `call_${n}`, name: 'get_weather', arguments: { city: 'Paris' } }] },
    { text: 'Sunny in Paris.' },
  );
  const sessionId = `${prefix}-${arm}-${Math.floor(n / TURNS_PER_SESSION)}`;
  const runtime = arms[arm] as Runtime;
  if (mode === 'run') {
    await runtime.run('bench', sessionId, `Weather number ${n}?`);
    return;
  }
  for await (const _event of runtime.stream('bench', sessionId, `Weather number ${n}?`)) {
    // consume every event, as a client would
  }
}

/** A turn as one invocation: the otel arm exports its spans before "answering". */
async function invocation(arm: ArmName, mode: 'run' | 'stream', n: number, prefix: string) {
  await turn(arm, mode, n, prefix);
  await flushers[arm]?.();
}

type Medians = Record<ArmName, { wall: number; cpu: number }>;

async function measure(mode: 'run' | 'stream', rep: number): Promise<Medians> {
  const nextOrder = shuffler(ARMS, 0x7ace + rep * 2 + (mode === 'run' ? 0 : 1));
  const times: Record<ArmName, number[]> = Object.fromEntries(ARMS.map((arm) => [arm, []]));
  const cpu: Record<ArmName, number[]> = Object.fromEntries(ARMS.map((arm) => [arm, []]));
  for (let n = 0; n < WARMUP + TURNS; n++) {
    // The server keeps every request: drop them so memory stays flat.
    if (n % 50 === 0) server.reset();
    // A new seeded shuffle each turn (bench/order.ts): a rotation always put each arm right
    // after the same other arm, which left it that arm's pending work.
    for (const arm of nextOrder()) {
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      await invocation(arm, mode, n, `${mode}${rep}`);
      const used = process.cpuUsage(cpuStarted);
      if (n >= WARMUP) {
        times[arm]?.push(performance.now() - started);
        cpu[arm]?.push((used.user + used.system) / 1000);
      }
    }
  }
  return Object.fromEntries(
    ARMS.map((arm) => [arm, { wall: median(times[arm] ?? []), cpu: median(cpu[arm] ?? []) }]),
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(
  `tracing-overhead: ${TURNS} turns per arm (+${WARMUP} warm-up) x ${REPS} repetitions, each 2 model calls + 1 tool call, Node ${process.version}, load average ${load()}`,
);
const TRACED = ARMS.filter((arm) => arm !== 'off');
type Ratios = Record<string, number[]>;
const ratios: Ratios = {};
const fmt = (v: number) => v.toFixed(3);
for (let rep = 1; rep <= REPS; rep++) {
  for (const mode of ['run', 'stream'] as const) {
    const m = await measure(mode, rep);
    for (const kind of ['wall', 'cpu'] as const) {
      const parts = TRACED.map((arm) => {
        const ratio = (m[arm]?.[kind] ?? 0) / (m.off?.[kind] ?? 1);
        const key = `${mode} ${kind} ${arm}`;
        ratios[key] = [...(ratios[key] ?? []), ratio];
        return `${arm} ${fmt(m[arm]?.[kind] ?? 0)} ms, ratio ${fmt(ratio)}`;
      });
      console.log(
        `rep ${rep} ${mode.padEnd(6)} ${kind.padEnd(4)} tracing off median ${fmt(m.off?.[kind] ?? 0)} ms | ${parts.join(' | ')}`,
      );
    }
  }
}
console.log(`summary (median ratio over ${REPS} repetitions [min–max]), load average ${load()}:`);
for (const mode of ['run', 'stream'] as const) {
  for (const kind of ['wall', 'cpu'] as const) {
    const parts = TRACED.map((arm) => {
      const list = ratios[`${mode} ${kind} ${arm}`] ?? [];
      return `${arm} ${fmt(median(list))} [${fmt(Math.min(...list))}–${fmt(Math.max(...list))}]`;
    });
    console.log(`${mode.padEnd(6)} ${kind.padEnd(4)} ${parts.join(' | ')}`);
  }
}
await traced.close();
await otel.close();
await otelSpansOnly.close();
await server.close();
closeSync(devNull);
daemon.kill('SIGTERM');
const received = await new Promise<string>((resolve) =>
  daemon.stderr.once('data', (data) => resolve(String(data).trim())),
);
collector.kill('SIGTERM');
const exports = await new Promise<string>((resolve) =>
  collector.stderr.once('data', (data) => resolve(String(data).trim())),
);
console.log(
  `cloudwatch arm wrote ${lines} EMF/log lines; the daemon received ${received} segments; the collector received ${exports} OTLP requests`,
);
