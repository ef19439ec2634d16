/**
 * Runtime overhead: the same turns through `Runtime` and through each bare SDK (OpenAI Agents,
 * AI SDK, LangGraph), against one scripted model server. Every arm runs in one interleaved loop,
 * turn by turn, in an order that rotates, so machine noise hits all of them alike. Prints per
 * framework the median per-turn wall and CPU time of `run` and `stream` against the bare
 * non-streaming and streaming calls and their ratios (aim: ≤ 1.05), and the bare SDK's stream/run
 * ratio (what `Runtime.run` saves by taking the framework's non-streaming path).
 *
 *   npm run bench            BENCH_TURNS=400 BENCH_REPS=3 npm run bench
 *   BENCH_ONLY=langgraph npm run bench   (some frameworks only, e.g. under `node --cpu-prof`)
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { startScriptedModelServer } from '../lib/testing/index.js';
import { shuffler } from './order.js';
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

/**
 * A seeded shuffle per turn: with a rotation each arm always follows the same one and absorbs
 * what that one left pending. `BENCH_ORDER=rotate` (or `reverse`) keeps the old order to compare.
 */
const ORDER = process.env.BENCH_ORDER ?? 'shuffle';
const shuffle = shuffler(arms, 29);
function order(turn: number) {
  if (ORDER === 'rotate') return arms.map((_, i) => arms[(turn + i) % arms.length]);
  if (ORDER === 'reverse') return arms.map((_, i) => arms[(turn + i) % arms.length]).reverse();
  return shuffle();
}

/** Per arm: the median wall time of a turn and the median CPU time of this process during it. */
interface Medians {
  wall: Map<string, number>;
  cpu: Map<string, number>;
}

/**
 * One repetition: every arm once per turn, in a new shuffled order each turn; medians per arm. CPU time
 * is the whole process's (the scripted server runs in it too, alike for both sides): under load it
 * moves less than wall time, which also counts the time other processes hold the cores.
 */
async function repetition(): Promise<Medians> {
  const wall = new Map(arms.map(({ key }) => [key, [] as number[]]));
  const cpu = new Map(arms.map(({ key }) => [key, [] as number[]]));
  for (let turn = 0; turn < WARMUP + TURNS; turn++) {
    const prompt = `Question number ${turn}?`;
    // One order per turn: each arm exactly once.
    for (const { key, arm } of order(turn) as (typeof arms)[number][]) {
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await arm(turn, prompt);
      const elapsed = performance.now() - started;
      const used = process.cpuUsage(cpuBefore);
      if (turn < WARMUP) continue;
      wall.get(key)?.push(elapsed);
      cpu.get(key)?.push((used.user + used.system) / 1000);
    }
  }
  const medians = (m: Map<string, number[]>) =>
    new Map([...m].map(([key, values]) => [key, median(values)]));
  return { wall: medians(wall), cpu: medians(cpu) };
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
  const { wall, cpu } = await repetition();
  const at = (m: Map<string, number>, key: string) => m.get(key) as number;
  for (const { name } of all) {
    for (const mode of ['run', 'stream'] as const) {
      const [bare, runtime] = [
        at(wall, `${name}/bare/${mode}`),
        at(wall, `${name}/runtime/${mode}`),
      ];
      const [bareCpu, runtimeCpu] = [
        at(cpu, `${name}/bare/${mode}`),
        at(cpu, `${name}/runtime/${mode}`),
      ];
      console.log(
        `rep ${rep + 1} ${name.padEnd(9)} ${mode.padEnd(6)} wall bare ${bare.toFixed(3)} ms | Runtime ${runtime.toFixed(3)} ms | ratio ${(runtime / bare).toFixed(3)}` +
          `  cpu bare ${bareCpu.toFixed(3)} ms | Runtime ${runtimeCpu.toFixed(3)} ms | ratio ${(runtimeCpu / bareCpu).toFixed(3)}`,
      );
      push(`${name} ${mode}`, runtime / bare);
      push(`${name} ${mode} cpu`, runtimeCpu / bareCpu);
    }
    push(`${name} sdk`, at(wall, `${name}/bare/stream`) / at(wall, `${name}/bare/run`));
  }
}
console.log(
  `ratios, median of ${REPS} repetitions [min–max] (aim run and stream ≤ 1.05), load ${load()}`,
);
for (const { name } of all) {
  const of = (kind: string) => {
    const values = ratios.get(`${name} ${kind}`) ?? [];
    const spread =
      values.length > 1
        ? ` [${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)}]`
        : '';
    return `${median(values).toFixed(3)}${spread}`;
  };
  console.log(
    `${name.padEnd(9)} wall run ${of('run')} | stream ${of('stream')} || cpu run ${of('run cpu')} | stream ${of('stream cpu')} || bare stream/run ${of('sdk')}`,
  );
}
await server.close();
