/**
 * Each function's bundle built as the CDK stack builds it (infra/bundling.ts: esbuild, ESM,
 * node22, minified, external source map), twice: with `@aws-sdk/*` left to the Lambda runtime
 * (`-c bundleAwsSdk=false`) and with the pinned SDK bundled (the default). For each: minified and
 * gzipped size, and the cold import time next to an empty Node.js process, interleaved in one run,
 * with the NODE_OPTIONS the functions get (`--enable-source-maps`). An external SDK is imported
 * from node_modules, as Lambda imports it from the runtime's own copy: its load time is counted,
 * its size is not part of the bundle. Aim (issue #7): WebSocket, fan-out and authorizer bundles
 * under 300 KB minified, cold import within 40 ms of an empty process.
 * Cold imports run under Node.js 22 and 24 side by side (the Lambda runtimes to choose between,
 * from the npm `node` package via npx; BENCH_NODES=22 or BENCH_NODES=current to narrow it).
 * Bundles are built for the default `tracing=cloudwatch` (no OTel SDK in them); one more row is
 * the worker built for `tracing=cloudwatch,otlp`, imported with that backend on (it loads lazily).
 * Fails (exit 1) when the approvals bundle holds the agents entry, a framework or the Runtime.
 *
 * Then each function's cold import next to a hand-written peer (bench/bundle-peers.ts).
 *
 *   npm run bench:bundles          BENCH_IMPORTS=9 npm run bench:bundles
 *   BENCH_BUNDLES=peers npm run bench:bundles   (only the peers; BENCH_PAIRS pairs, default 9;
 *   BENCH_PEERS=fanout,ws-message narrows them)
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BUNDLE } from '../infra/bundling.js';
import { comparePeers, printPeers } from './bundle-peers.js';
import {
  bundleFile,
  coldImport,
  median,
  ms,
  nodeBinary,
  ROOT,
  scratchDir,
  type Timing,
} from './bundle-tools.js';

const IMPORTS = Number(process.env.BENCH_IMPORTS ?? 5);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 9);
const ONLY_PEERS = process.env.BENCH_BUNDLES === 'peers';
/** BENCH_PEERS=fanout,ws-message: only these functions next to their peers. */
const PEER_NAMES = process.env.BENCH_PEERS?.split(',').map((name) => name.trim());
const AIMED = new Set(['ws-connect', 'ws-disconnect', 'ws-message', 'fanout', 'authorizer']);
const names = readdirSync(join(ROOT, 'functions'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();
/** The worker again with a framework's agents entry as `#agents`: that framework's bundle. */
const FRAMEWORK_WORKERS: [label: string, agents: string][] = [
  ['worker (adk)', 'examples/adk/agents.ts'],
  ['worker (strands)', 'examples/strands/agents.ts'],
  ['worker (mastra)', 'examples/mastra/agents.ts'],
];
const entries: [label: string, fn: string, agents?: string][] = ONLY_PEERS
  ? []
  : [
      ...names.map((name): [string, string] => [name, name]),
      ...FRAMEWORK_WORKERS.map(([label, agents]): [string, string, string] => [
        label,
        'worker',
        agents,
      ]),
    ];
const out = scratchDir();

const NODES = (process.env.BENCH_NODES ?? (ONLY_PEERS ? '22' : '22,24'))
  .split(',')
  .map((version) => {
    const bin = nodeBinary(version.trim());
    const v = spawnSync(bin, ['-v'], { encoding: 'utf8' }).stdout.trim();
    return { version: v, bin };
  });

// Only the functions that run agents may load these (issue #16: approvals routes decisions only).
const AGENTS_ONLY = [/^examples\//, /^lib\/frameworks\//, /^lib\/core\/runtime\.ts$/, /@openai\//];

async function bundle(
  label: string,
  name: string,
  bundleAwsSdk: boolean,
  agents?: string,
  tracing: readonly string[] = ['cloudwatch'],
): Promise<[string, string[]]> {
  const variant = `${bundleAwsSdk ? 'bundled' : 'external'}-${tracing.join('-')}`;
  const file = join(out, variant, label, 'index.mjs');
  const inputs = await bundleFile({
    entry: `functions/${name}.ts`,
    outfile: file,
    bundleAwsSdk,
    agents,
    tracing,
  });
  return [file, inputs];
}

/** Interleaved cold imports of `file` and the empty module under one Node.js binary; medians. */
function measure(file: string, empty: string, node: string, extraEnv: Record<string, string> = {}) {
  const empties: Timing[] = [];
  const runs: Timing[] = [];
  for (let i = 0; i < IMPORTS; i++) {
    // Interleaved, so machine noise hits both alike.
    empties.push(coldImport(empty, node));
    runs.push(coldImport(file, node, extraEnv));
  }
  const at = (list: Timing[], key: keyof Timing) => median(list.map((r) => r[key]));
  return {
    empty: at(empties, 'process'),
    extra: at(runs, 'process') - at(empties, 'process'),
    cpu: at(runs, 'cpu') - at(empties, 'cpu'),
  };
}

const leaks: string[] = [];
let peersMissed = false;

try {
  const empty = join(out, 'empty.mjs');
  writeFileSync(empty, 'export {};\n');
  const rows: string[] = [];
  for (const [label, name, agents] of entries) {
    let external: Buffer | undefined;
    for (const bundleAwsSdk of [false, true]) {
      const [file, inputs] = await bundle(label, name, bundleAwsSdk, agents);
      if (name === 'approvals') {
        leaks.push(...inputs.filter((input) => AGENTS_ONLY.some((re) => re.test(input))));
      }
      const bytes = readFileSync(file);
      // A function that imports no AWS SDK (the authorizer) gets the same bundle both ways.
      if (bundleAwsSdk && external?.equals(bytes)) {
        rows[rows.length - 1] = rows.at(-1)!.replace(' | runtime | ', ' | none | ');
        continue;
      }
      external = bytes;
      const kb = bytes.length / 1024;
      const cells = [
        label,
        bundleAwsSdk ? 'bundled' : 'runtime',
        `${kb.toFixed(0)} KB`,
        `${(gzipSync(bytes).length / 1024).toFixed(0)} KB`,
      ];
      let aim = '';
      for (const [index, node] of NODES.entries()) {
        const m = measure(file, empty, node.bin);
        cells.push(ms(m.empty), `+${ms(m.extra)}`, ms(m.cpu));
        if (index === 0 && AIMED.has(name)) aim = kb < 300 && m.extra < 40 ? 'met' : 'missed';
      }
      rows.push([...cells, aim].join(' | '));
    }
  }
  // The worker as deployed with `-c tracing=cloudwatch` and `-c tracing=cloudwatch,otlp`,
  // each imported with its backends on (as on Lambda), side by side.
  for (const tracing of ONLY_PEERS ? [] : [['cloudwatch'], ['cloudwatch', 'otlp']]) {
    const label = `worker (tracing=${tracing.join(',')})`;
    const [file] = await bundle(label, 'worker', true, undefined, tracing);
    const bytes = readFileSync(file);
    const value = tracing.join(',');
    const cells = [
      label,
      'bundled',
      `${(bytes.length / 1024).toFixed(0)} KB`,
      `${(gzipSync(bytes).length / 1024).toFixed(0)} KB`,
    ];
    const tracingEnv = { AGENT_KERNEL_TRACING: value, AWS_LAMBDA_FUNCTION_NAME: 'worker' };
    for (const node of NODES) {
      const m = measure(file, empty, node.bin, tracingEnv);
      cells.push(ms(m.empty), `+${ms(m.extra)}`, ms(m.cpu));
    }
    rows.push([...cells, ''].join(' | '));
  }
  if (!ONLY_PEERS) {
    console.log(
      `bundles: infra/bundling.ts options, ${IMPORTS} interleaved cold imports each with ${BUNDLE.nodeOptions}, under ${NODES.map((n) => `Node ${n.version}`).join(' and ')}`,
    );
    const heads = NODES.flatMap((n) => {
      const v = n.version.split('.')[0];
      return [`empty process (${v})`, `import difference (${v})`, `import CPU (${v})`];
    });
    console.log(
      `| function | AWS SDK | minified | gzipped | ${heads.join(' | ')} | aim (300 KB, 40 ms; ${NODES[0]?.version.split('.')[0]}) |`,
    );
    console.log(`|${'---|'.repeat(heads.length + 5)}`);
    for (const row of rows) console.log(`| ${row} |`);
  }
  const first = NODES[0] as { version: string; bin: string };
  const peers = await comparePeers(out, first.bin, PAIRS, PEER_NAMES);
  if (!printPeers(peers, PAIRS, first.version)) peersMissed = true;
} finally {
  rmSync(out, { recursive: true, force: true });
}

if (leaks.length > 0) {
  console.error(
    `approvals bundle holds what only agent-running functions may: ${leaks.join(', ')}`,
  );
  process.exitCode = 1;
}

// The aim is printed, not enforced: a loaded machine can push a ratio either way.
if (peersMissed) console.log('peers: an aimed function is above its peer by more than the aim');
