/**
 * Runtime overhead: the same turns through `Runtime` and through each bare SDK (OpenAI Agents,
 * AI SDK, LangGraph), against one scripted model server. Every arm runs in one interleaved loop,
 * turn by turn, in an order that rotates, so machine noise hits all of them alike. Prints per
 * framework the median per-turn time of `run` and `stream` against the bare non-streaming and
 * streaming calls and their ratios (aim: ≤ 1.05), and the bare SDK's stream/run ratio (what
 * `Runtime.run` saves by taking the framework's non-streaming path).
 *
 *   npm run bench            BENCH_TURNS=400 BENCH_REPS=3 npm run bench
 *   BENCH_ONLY=langgraph npm run bench   (some frameworks only, e.g. under `node --cpu-prof`)
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { startScriptedModelServer } from '../lib/testing/index.js';
import { type Arm, frameworks, type Mode } from './runtime-arms.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const REPS = Number(process.env.BENCH_REPS ?? 1);
const WARMUP = 20;

const server = await startScriptedModelServer({
  fallback: { text: 'A short scripted answer for the benchmark.' },
});
const only = process.env.BENCH_ONLY?.split(',');
const all = frameworks(server.url).filter((f) => !only || only.includes(f.name));
const arms: { key: string; arm: Arm }[] = all.flatMap((f) =>
  (['run', 'stream'] as const).flatMap((mode: Mode) => [
    { key: `${f.name}/bare/${mode}`, arm: f.bare[mode] },
    { key: `${f.name}/runtime/${mode}`, arm: f.runtime[mode] },
  ]),
);

/** One repetition: every arm once per turn, the starting arm rotating; medians per arm. */
async function repetition(): Promise<Map<string, number>> {
  const times = new Map(arms.map(({ key }) => [key, [] as number[]]));
  for (let turn = 0; turn < WARMUP + TURNS; turn++) {
    const prompt = `Question number ${turn}?`;
    for (let i = 0; i < arms.length; i++) {
      const { key, arm } = arms[(turn + i) % arms.length] as (typeof arms)[number];
      const started = performance.now();
      await arm(turn, prompt);
      if (turn >= WARMUP) times.get(key)?.push(performance.now() - started);
    }
  }
  return new Map([...times].map(([key, values]) => [key, median(values)]));
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
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(
  `runtime-overhead: ${TURNS} turns per arm (+${WARMUP} warm-up) × ${REPS} repetitions, ` +
    `${arms.length} arms interleaved, Node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? '?'}, load ${load()}`,
);
const ratios = new Map<string, number[]>();
const push = (key: string, value: number) => ratios.set(key, [...(ratios.get(key) ?? []), value]);
for (let rep = 0; rep < REPS; rep++) {
  const medians = await repetition();
  const at = (key: string) => medians.get(key) as number;
  for (const { name } of all) {
    for (const mode of ['run', 'stream'] as const) {
      const bare = at(`${name}/bare/${mode}`);
      const runtime = at(`${name}/runtime/${mode}`);
      console.log(
        `rep ${rep + 1} ${name.padEnd(9)} ${mode.padEnd(6)} bare ${bare.toFixed(3)} ms | Runtime ${runtime.toFixed(3)} ms | ratio ${(runtime / bare).toFixed(3)}`,
      );
      push(`${name} ${mode}`, runtime / bare);
    }
    push(`${name} sdk`, at(`${name}/bare/stream`) / at(`${name}/bare/run`));
  }
}
console.log(`ratios (median of ${REPS} repetitions; aim run and stream ≤ 1.05), load ${load()}`);
for (const { name } of all) {
  const of = (kind: string) => median(ratios.get(`${name} ${kind}`) ?? []).toFixed(3);
  console.log(
    `${name.padEnd(9)} run ${of('run')} | stream ${of('stream')} | bare stream/run ${of('sdk')}`,
  );
}
await server.close();
