/**
 * Issue #25's two "adopt Powertools or say why not" questions, measured: lib/aws/middleware/sqs-batch.ts against
 * `@aws-lambda-powertools/batch` (`SqsFifoPartialProcessorAsync`), lib/aws/adapters/emf-count.ts against
 * `@aws-lambda-powertools/metrics`. The candidates are bench/powertools/{batch,emf}.ts: the same
 * signatures, so a function is built with either by swapping one module.
 *
 * 1. Behaviour: the same SQS batches through both processors (with Powertools' defaults and with
 *    the options that match ours): which records are reported failed, which ran, spans opened.
 * 2. Size and cold start: the fanout function (processBatch + emitCount) and the authorizer
 *    (emitCount) built as the stack builds them (infra/bundling.ts, AWS SDK bundled), with ours and
 *    with the candidates; minified and gzipped size and the in-process cold import time (wall and
 *    CPU, medians of interleaved fresh processes).
 * 3. The EMF line each writes for one count.
 *
 *   npm run bench:powertools          BENCH_IMPORTS=15 npm run bench:powertools
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { build, type Plugin } from 'esbuild';
import { BUNDLE, bundleDefine, externalModules } from '../infra/bundling.js';
import { emitCount as ourCount } from '../lib/aws/adapters/emf-count.js';
import { processBatch as ours } from '../lib/aws/middleware/sqs-batch.js';
import type { Span, Tracer } from '../lib/core/tracer.js';
import { processBatch as candidate } from './powertools/batch.js';
import { emitCount as candidateCount } from './powertools/emf.js';

const ROOT = resolve(import.meta.dirname, '..');
const IMPORTS = Number(process.env.BENCH_IMPORTS ?? 9);

// 1. Behaviour ----------------------------------------------------------------------------------

function record(messageId: string, group?: string): SQSRecord {
  return {
    messageId,
    receiptHandle: messageId,
    body: '{}',
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '0',
      SenderId: 'bench',
      ApproximateFirstReceiveTimestamp: '0',
      ...(group ? { MessageGroupId: group } : {}),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench',
    awsRegion: 'us-east-1',
  } as SQSRecord;
}

/** Counts spans; a record "fails" when its id starts with `x`. */
function run(processor: typeof ours, event: SQSEvent, extra: Record<string, unknown> = {}) {
  let spans = 0;
  const ran: string[] = [];
  const span = { setAttributes() {}, setPayload() {}, recordError() {}, end() {} } as const;
  const tracer: Tracer = {
    startSpan: () => {
      spans++;
      return { ...span, traceHeader: () => undefined } as Span;
    },
  };
  return processor(
    event,
    async (r) => {
      ran.push(r.messageId);
      if (r.messageId.startsWith('x')) throw new Error('failed');
    },
    { tracer, spanName: 'job', ...extra },
  ).then(
    (response) => ({
      failed: response.batchItemFailures.map((f) => f.itemIdentifier).join(' ') || '—',
      ran: ran.join(' '),
      spans,
    }),
    (err: Error) => ({ failed: `throws ${err.name}`, ran: ran.join(' '), spans }),
  );
}

const BATCHES: [string, SQSRecord[]][] = [
  [
    'FIFO: a1 ok, xa2 fails, a3 (group a), b1, b2 ok',
    [
      record('a1', 'a'),
      record('xa2', 'a'),
      record('a3', 'a'),
      record('b1', 'b'),
      record('b2', 'b'),
    ],
  ],
  ['FIFO: every record fails', [record('xa1', 'a'), record('xb1', 'b')]],
  ['standard queue: xr1 fails, r2 ok', [record('xr1'), record('r2')]],
];

const table: string[] = [];
// Each processor's FailedRecords EMF line goes to stdout: kept out of the table.
const stdoutWrite = process.stdout.write;
process.stdout.write = (() => true) as typeof process.stdout.write;
for (const [label, records] of BATCHES) {
  const event = { Records: records } as SQSEvent;
  const rows: [string, Awaited<ReturnType<typeof run>>][] = [
    ['lib/aws/middleware/sqs-batch.ts', await run(ours, event)],
    ['Powertools, defaults', await run(candidate, event, { fifoDefaults: true })],
    ['Powertools, skipGroupOnError + throwOnFullBatchFailure: false', await run(candidate, event)],
  ];
  for (const [name, r] of rows)
    table.push(`| ${label} | ${name} | ${r.failed} | ${r.ran} | ${r.spans} |`);
}
process.stdout.write = stdoutWrite;
console.log('## Behaviour (failed = batchItemFailures; ran = records handled)\n');
console.log('| batch | processor | failed | ran | spans |');
console.log('|---|---|---|---|---|');
for (const row of table) console.log(row);

// 2. Size and cold start ------------------------------------------------------------------------

/** Builds `functions/<name>.ts` with lib/aws/middleware/sqs-batch.ts and lib/aws/adapters/emf-count.ts swapped for the candidates chosen. */
function swap(modules: readonly ('batch' | 'emf')[]): Plugin {
  return {
    name: 'swap',
    setup(b) {
      b.onResolve({ filter: /\/(sqs-batch|emf-count)\.js$/ }, (args) => {
        const name = args.path.endsWith('sqs-batch.js') ? 'batch' : 'emf';
        const file = name === 'batch' ? 'middleware/sqs-batch.js' : 'adapters/emf-count.js';
        const inAws = resolve(args.resolveDir, args.path) === join(ROOT, 'lib/aws', file);
        if (!inAws || !modules.includes(name)) return undefined;
        return { path: join(ROOT, 'bench/powertools', `${name}.ts`) };
      });
    },
  };
}

const cache = join(ROOT, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const out = mkdtempSync(join(cache, 'powertools-'));
const env = {
  ...process.env,
  AWS_REGION: 'us-east-1',
  TABLE_NAME: 'bench',
  AUTH_MODE: 'hs256',
  JWT_SECRET: 'bench-secret-bench-secret',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

async function bundle(fn: string, modules: readonly ('batch' | 'emf')[]): Promise<string> {
  const file = join(out, `${fn}-${modules.join('-') || 'ours'}`, 'index.mjs');
  await build({
    entryPoints: [join(ROOT, 'functions', `${fn}.ts`)],
    outfile: file,
    bundle: true,
    platform: BUNDLE.platform,
    format: BUNDLE.format,
    target: BUNDLE.target,
    mainFields: [...BUNDLE.mainFields],
    minify: BUNDLE.minify,
    banner: { js: BUNDLE.banner },
    external: externalModules(true),
    define: bundleDefine(['cloudwatch']),
    plugins: [swap(modules)],
    logLevel: 'error',
  });
  return file;
}

function coldImport(file: string): { import: number; cpu: number } {
  const script = `const t = performance.now(), c = process.cpuUsage();
await import(${JSON.stringify(file)});
const u = process.cpuUsage(c);
process.stdout.write(JSON.stringify({ import: performance.now() - t, cpu: (u.user + u.system) / 1000 }));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (result.status !== 0) throw new Error(`import of ${file} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const VARIANTS: [label: string, modules: ('batch' | 'emf')[]][] = [
  ['ours', []],
  ['Powertools batch', ['batch']],
  ['Powertools batch + metrics', ['batch', 'emf']],
  ['Powertools metrics', ['emf']],
];
const FUNCTIONS: [fn: string, variants: string[]][] = [
  ['fanout', ['ours', 'Powertools batch', 'Powertools batch + metrics']],
  ['authorizer', ['ours', 'Powertools metrics']],
];

try {
  console.log(`\n## Bundles (${process.version}, AWS SDK bundled; import: median of ${IMPORTS})\n`);
  console.log(
    '| function | with | minified | gzipped | Δ minified | import (wall) | import (CPU) |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const [fn, labels] of FUNCTIONS) {
    const files = await Promise.all(
      labels.map((label) =>
        bundle(fn, VARIANTS.find(([l]) => l === label)?.[1] ?? []).then((f) => [label, f] as const),
      ),
    );
    const timings = new Map(
      files.map(([label]) => [label, [] as { import: number; cpu: number }[]]),
    );
    for (let i = 0; i < IMPORTS; i++) {
      // Interleaved, so machine noise hits every variant alike.
      for (const [label, file] of files) timings.get(label)?.push(coldImport(file));
    }
    const base = readFileSync(files[0]?.[1] as string).length;
    for (const [label, file] of files) {
      const bytes = readFileSync(file);
      const t = timings.get(label) ?? [];
      const delta = bytes.length - base;
      console.log(
        [
          fn,
          label,
          `${(bytes.length / 1024).toFixed(1)} KB`,
          `${(gzipSync(bytes).length / 1024).toFixed(1)} KB`,
          delta === 0 ? '—' : `+${(delta / 1024).toFixed(1)} KB`,
          `${median(t.map((x) => x.import)).toFixed(1)} ms`,
          `${median(t.map((x) => x.cpu)).toFixed(1)} ms`,
        ]
          .join(' | ')
          .replace(/^/, '| ')
          .replace(/$/, ' |'),
      );
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}

// 3. The EMF line -------------------------------------------------------------------------------

const lines: string[] = [];
const [write, writeErr] = [process.stdout.write, process.stderr.write];
// Powertools' logger writes warnings to stderr, its metrics to stdout: on Lambda both are the log.
process.stdout.write = process.stderr.write = ((chunk: unknown) => {
  lines.push(...String(chunk).trim().split('\n'));
  return true;
}) as typeof process.stdout.write;
const logger = new Logger({ serviceName: 'authorizer' });
const count = {
  name: 'AuthorizerRejections',
  message: 'token rejected',
  dimensions: { FunctionName: 'authorizer' },
  properties: { reason: 'expired' },
};
ourCount(logger, count);
const oursLines = lines.splice(0).length;
candidateCount(logger, count);
const candidateLines = lines.splice(0);
process.stdout.write = write;
process.stderr.write = writeErr;
const emf = candidateLines.map((l) => JSON.parse(l)).find((l) => l._aws);
console.log('\n## One count\n');
console.log(
  `lib/aws/adapters/emf-count.ts: ${oursLines} line (the log line is the metric: message, level, ids)`,
);
console.log(
  `Powertools metrics: ${candidateLines.length} lines (a metric line without the log's fields,` +
    ` then the log line); its dimensions: ${JSON.stringify(emf?._aws.CloudWatchMetrics[0].Dimensions)}`,
);
