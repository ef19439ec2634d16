/**
 * Runtime overhead: the same turns through `Runtime` and through the bare `@openai/agents` SDK,
 * against one scripted model server, interleaved turn by turn so machine noise hits both alike.
 * Prints the median per-turn time of each and their ratio (aim: under 1.05), then the bare SDK's
 * streaming path against its non-streaming one (what `Runtime.run` avoids by not draining a stream).
 *
 *   npm run bench            BENCH_TURNS=400 npm run bench
 */
import { performance } from 'node:perf_hooks';
import {
  type AgentInputItem,
  OpenAIProvider,
  Agent as SdkAgent,
  Runner as SdkRunner,
} from '@openai/agents';
import { OpenAIModule } from '../lib/frameworks/openai/index.js';
import { InMemorySessionStore, Runtime } from '../lib/index.js';
import { startScriptedModelServer } from '../lib/testing/index.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const WARMUP = 20;
// Sessions restart every few turns so history (and request size) stays alike in both arms.
const TURNS_PER_SESSION = 8;

const server = await startScriptedModelServer({
  fallback: { text: 'A short scripted answer for the benchmark.' },
});
const provider = new OpenAIProvider({ apiKey: 'bench', baseURL: server.url, useResponses: true });
const native = new SdkAgent({
  name: 'bench',
  instructions: 'Answer briefly.',
  model: 'scripted-model',
});
const sdk = new SdkRunner({ modelProvider: provider, tracingDisabled: true });
const runtime = new Runtime({
  sessions: new InMemorySessionStore(),
  modules: [new OpenAIModule([native], { sdkRunner: sdk })],
});

type Arm = (turn: number, prompt: string) => Promise<void>;

/** The bare SDK's two arms; each call gives them a history of their own. */
function bareArms(): Record<'run' | 'stream', Arm> {
  let history: AgentInputItem[] = [];
  return {
    run: async (turn, prompt) => {
      if (turn % TURNS_PER_SESSION === 0) history = [];
      const result = await sdk.run(native, [...history, { role: 'user', content: prompt }]);
      history = result.history;
    },
    stream: async (turn, prompt) => {
      if (turn % TURNS_PER_SESSION === 0) history = [];
      const result = await sdk.run(native, [...history, { role: 'user', content: prompt }], {
        stream: true,
      });
      for await (const _event of result) {
        // consume every event, as a client would
      }
      await result.completed;
      history = result.history;
    },
  };
}
const bare = bareArms();
const viaRuntime: Record<'run' | 'stream', Arm> = {
  run: async (turn, prompt) => {
    await runtime.run('bench', session(turn), prompt);
  },
  stream: async (turn, prompt) => {
    for await (const _event of runtime.stream('bench', session(turn), prompt)) {
      // consume every event, as a client would
    }
  },
};
let prefix = 0;
const session = (turn: number) => `bench-${prefix}-${Math.floor(turn / TURNS_PER_SESSION)}`;

/** Two arms, interleaved turn by turn; the arm that goes first alternates. */
async function measure(a: Arm, b: Arm): Promise<{ a: number; b: number }> {
  const times = { a: [] as number[], b: [] as number[] };
  prefix += 1;
  for (let turn = 0; turn < WARMUP + TURNS; turn++) {
    const prompt = `Question number ${turn}?`;
    // Alternate which arm goes first so neither always gets a warmer cache.
    const order = turn % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const arm of order) {
      const started = performance.now();
      await (arm === 'a' ? a : b)(turn, prompt);
      if (turn >= WARMUP) times[arm].push(performance.now() - started);
    }
  }
  return { a: median(times.a), b: median(times.b) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

console.log(
  `runtime-overhead: ${TURNS} turns per arm (+${WARMUP} warm-up), Node ${process.version}`,
);
for (const mode of ['run', 'stream'] as const) {
  const result = await measure(bare[mode], viaRuntime[mode]);
  console.log(
    `${mode.padEnd(6)} bare SDK median ${result.a.toFixed(3)} ms | Runtime median ${result.b.toFixed(3)} ms | ratio ${(result.b / result.a).toFixed(3)}`,
  );
}
// What `run` saves by not draining a stream: the SDK's two paths side by side.
const paths = await measure(bare.run, bareArms().stream);
console.log(
  `sdk    bare run() median ${paths.a.toFixed(3)} ms | bare stream median ${paths.b.toFixed(3)} ms | ratio ${(paths.b / paths.a).toFixed(3)}`,
);
await server.close();
