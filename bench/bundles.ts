/**
 * Each function's bundle as the CDK stack builds it (esbuild, ESM, node22, minified, everything
 * bundled), its gzipped size, and its cold import time next to an empty Node.js process, measured
 * interleaved in one run. Aim (issue #7): WebSocket, fan-out and authorizer bundles under 300 KB
 * minified, cold import within 40 ms of an empty process.
 *
 *   npm run bench:bundles          BENCH_IMPORTS=9 npm run bench:bundles
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');
const IMPORTS = Number(process.env.BENCH_IMPORTS ?? 5);
const AIMED = new Set(['ws-connect', 'ws-disconnect', 'ws-message', 'fanout', 'authorizer']);
const names = readdirSync(join(ROOT, 'functions'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();
const out = mkdtempSync(join(tmpdir(), 'bundles-'));
// What the functions read at cold start: present, so importing a bundle runs its real init.
const env = {
  ...process.env,
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

function coldImport(file: string): number {
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `await import(${JSON.stringify(file)})`],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  if (result.status !== 0) throw new Error(`import of ${file} failed: ${result.stderr}`);
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

try {
  const empty = join(out, 'empty.mjs');
  writeFileSync(empty, 'export {};\n');
  const rows: string[] = [];
  for (const name of names) {
    const file = join(out, `${name}.mjs`);
    await build({
      entryPoints: [join(ROOT, 'functions', `${name}.ts`)],
      outfile: file,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      mainFields: ['module', 'main'],
      minify: true,
      logLevel: 'error',
      banner: {
        js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });
    const bytes = readFileSync(file);
    const times = { empty: [] as number[], bundle: [] as number[] };
    for (let i = 0; i < IMPORTS; i++) {
      // Interleaved, so machine noise hits both alike.
      times.empty.push(coldImport(empty));
      times.bundle.push(coldImport(file));
    }
    const extra = median(times.bundle) - median(times.empty);
    const kb = bytes.length / 1024;
    const aim = AIMED.has(name) ? (kb < 300 && extra < 40 ? 'met' : 'missed') : '';
    rows.push(
      `| ${name} | ${kb.toFixed(0)} KB | ${(gzipSync(bytes).length / 1024).toFixed(0)} KB | ${median(times.empty).toFixed(0)} ms | ${median(times.bundle).toFixed(0)} ms | +${extra.toFixed(0)} ms | ${aim} |`,
    );
  }
  console.log(
    `bundles: esbuild ESM node22 minified, ${IMPORTS} interleaved cold imports each, Node ${process.version}`,
  );
  console.log(
    '| function | minified | gzipped | empty process | import | difference | aim (300 KB, 40 ms) |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  rmSync(out, { recursive: true, force: true });
}
