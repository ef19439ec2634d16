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
 *   npm run bench:bundles          BENCH_IMPORTS=9 npm run bench:bundles
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { BUNDLE, bundleDefine, externalModules } from '../infra/bundling.js';

const ROOT = resolve(import.meta.dirname, '..');
const IMPORTS = Number(process.env.BENCH_IMPORTS ?? 5);
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
const entries: [label: string, fn: string, agents?: string][] = [
  ...names.map((name): [string, string] => [name, name]),
  ...FRAMEWORK_WORKERS.map(([label, agents]): [string, string, string] => [
    label,
    'worker',
    agents,
  ]),
];
// Inside the project, so a bundle's external `@aws-sdk/*` imports resolve from node_modules.
const cache = join(ROOT, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const out = mkdtempSync(join(cache, 'bundles-'));
// What the functions read at cold start: present, so importing a bundle runs its real init.
const env = {
  ...process.env,
  NODE_OPTIONS: BUNDLE.nodeOptions,
  AWS_REGION: 'us-east-1',
  TABLE_NAME: 'bench',
  RUN_QUEUE_URL: 'http://127.0.0.1:9/000000000000/runs.fifo',
  EVENTS_QUEUE_URL: 'http://127.0.0.1:9/000000000000/events.fifo',
  APPROVALS_QUEUE_URL: 'http://127.0.0.1:9/000000000000/approvals',
  APPROVAL_REQUESTS_QUEUE_URL: 'http://127.0.0.1:9/000000000000/requests',
  AUTH_MODE: 'hs256',
  JWT_SECRET: 'bench-secret-bench-secret',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** A Node.js binary per measured version: `current` is this process's, others come from npx. */
function nodeBinary(version: string): string {
  if (version === 'current') return process.execPath;
  const found = spawnSync(
    'npx',
    ['-y', '-p', `node@${version}`, 'node', '-e', 'process.stdout.write(process.execPath)'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (found.status !== 0) throw new Error(`node@${version} via npx failed: ${found.stderr}`);
  return found.stdout.trim();
}

const NODES = (process.env.BENCH_NODES ?? '22,24').split(',').map((version) => {
  const bin = nodeBinary(version.trim());
  const v = spawnSync(bin, ['-v'], { encoding: 'utf8' }).stdout.trim();
  return { version: v, bin };
});

// Only the functions that run agents may load these (issue #16: approvals routes decisions only).
const AGENTS_ONLY = [/^examples\//, /^lib\/frameworks\//, /^lib\/core\/runtime\.ts$/, /@openai\//];

/**
 * One fresh process importing `file`: its wall time from spawn to exit, and inside it the import's
 * own wall and CPU time (user + system), which a busy machine disturbs less than the former.
 */
function coldImport(
  file: string,
  node: string,
  extraEnv: Record<string, string> = {},
): { process: number; import: number; cpu: number } {
  const script = `const t = performance.now(), c = process.cpuUsage();
await import(${JSON.stringify(file)});
const u = process.cpuUsage(c);
process.stdout.write(JSON.stringify({ import: performance.now() - t, cpu: (u.user + u.system) / 1000 }));`;
  const started = performance.now();
  const result = spawnSync(node, ['--input-type=module', '-e', script], {
    env: { ...env, ...extraEnv },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`import of ${file} failed: ${result.stderr}`);
  return { process: elapsed, ...JSON.parse(result.stdout) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function bundle(
  label: string,
  name: string,
  bundleAwsSdk: boolean,
  agents?: string,
  tracing: readonly string[] = ['cloudwatch'],
): Promise<[string, string[]]> {
  const variant = `${bundleAwsSdk ? 'bundled' : 'external'}-${tracing.join('-')}`;
  const file = join(out, variant, label, 'index.mjs');
  const result = await build({
    entryPoints: [join(ROOT, 'functions', `${name}.ts`)],
    outfile: file,
    bundle: true,
    platform: BUNDLE.platform,
    format: BUNDLE.format,
    target: BUNDLE.target,
    mainFields: [...BUNDLE.mainFields],
    minify: BUNDLE.minify,
    keepNames: BUNDLE.keepNames,
    sourcemap: BUNDLE.sourcemap,
    sourcesContent: BUNDLE.sourcesContent,
    banner: { js: BUNDLE.banner },
    external: externalModules(bundleAwsSdk),
    ...(agents ? { alias: { '#agents': join(ROOT, agents) } } : {}),
    define: bundleDefine(tracing),
    metafile: true,
    logLevel: 'error',
  });
  return [file, Object.keys((result.metafile as Metafile).inputs)];
}

type Timing = ReturnType<typeof coldImport>;

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

const ms = (value: number) => `${value.toFixed(0)} ms`;
const leaks: string[] = [];

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
  for (const tracing of [['cloudwatch'], ['cloudwatch', 'otlp']]) {
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
} finally {
  rmSync(out, { recursive: true, force: true });
}

if (leaks.length > 0) {
  console.error(
    `approvals bundle holds what only agent-running functions may: ${leaks.join(', ')}`,
  );
  process.exitCode = 1;
}
