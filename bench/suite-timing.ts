/**
 * `npx tsx bench/suite-timing.ts <vitest-json-report> [count] [--durations <file>]`: the suite's
 * wall time, per project, and its slowest files from a vitest JSON report (`npm test --
 * --reporter=json --outputFile=<file>`, as .ci/run writes one), the figures
 * docs/benchmarks.md#test-suite quotes. `--durations test/file-durations.json` also writes each
 * file's duration for test/sequencer.ts (longest first on a clone without vitest's cache), the
 * time its worker was busy with it (`--workers`: the run's worker count, default 2); a report of
 * one project updates only that project's files.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Report {
  startTime: number;
  success: boolean;
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults: {
    name: string;
    startTime: number;
    endTime: number;
    status: string;
    assertionResults: { title: string; duration: number | null; status: string }[];
  }[];
}

const USAGE =
  'usage: npx tsx bench/suite-timing.ts <vitest-json-report> [count] [--durations <file> [--workers <n>]]';
let args: ReturnType<typeof parse>;
try {
  args = parse();
} catch (err) {
  console.error(
    `error: ${(err as Error).message.split(/\. (?=To specify)/)[0]} (invalid-argument)\n${USAGE}`,
  );
  process.exit(2);
}
if (args.values.help) {
  console.log(USAGE);
  process.exit(0);
}
const [file, count = '12', ...extra] = args.positionals;
if (!file || extra.length > 0 || !(Number(count) > 0)) {
  console.error(
    `error: ${file ? `unexpected: ${extra[0] ?? count}` : 'no report'} (invalid-argument)\n${USAGE}`,
  );
  process.exit(2);
}

function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      durations: { type: 'string' },
      workers: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
const end = Math.max(...report.testResults.map((r) => r.endTime));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
// A report written in another checkout (a clean clone) names its files under that root.
const local = (name: string) =>
  /(?:^|\/)(test\/(?:unit|integration|infra|e2e)\/.*)$/.exec(name)?.[1] ?? name;
console.log(
  `suite: ${seconds(end - report.startTime)} wall, ${report.testResults.length} files, ` +
    `${report.numPassedTests} passed, ${report.numFailedTests} failed, ` +
    `${report.numPendingTests} skipped`,
);
console.log('slowest files (time from their first to their last test):');
const files = report.testResults
  .map((r) => ({ name: local(r.name), ms: r.endTime - r.startTime, status: r.status }))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, Number(count));
for (const f of files)
  console.log(
    `  ${seconds(f.ms).padStart(8)}  ${f.name}${f.status === 'passed' ? '' : ` (${f.status})`}`,
  );
const failed = report.testResults.flatMap((r) =>
  r.assertionResults
    .filter((a) => a.status === 'failed')
    .map((a) => `${local(r.name)} > ${a.title}`),
);
if (failed.length > 0) console.log(`failed:\n  ${failed.join('\n  ')}`);

/** The project of a test file, from vitest.config.ts's include globs (test/<project>/). */
const projectOf = (path: string) => /^test\/(unit|integration|infra|e2e)\//.exec(path)?.[1];

console.log('per project (sum of its files; files of a project overlap when workers allow):');
const perProject = new Map<string, { ms: number; files: number }>();
for (const r of report.testResults) {
  const project = projectOf(local(r.name)) ?? '?';
  const entry = perProject.get(project) ?? { ms: 0, files: 0 };
  entry.ms += r.endTime - r.startTime;
  entry.files += 1;
  perProject.set(project, entry);
}
for (const [project, { ms, files }] of [...perProject].sort()) {
  console.log(`  ${project.padEnd(12)} ${seconds(ms).padStart(9)} in ${files} files`);
}

if (args.values.durations) {
  const out = args.values.durations;
  const before = existsSync(out)
    ? (JSON.parse(readFileSync(out, 'utf8')) as { files: Record<string, number> }).files
    : {};
  const files: Record<string, number> = { ...before };
  const held = occupancy(report.testResults, Number(args.values.workers ?? 2));
  for (const r of report.testResults) {
    const path = local(r.name);
    const project = projectOf(path);
    if (project) files[`${project}:${path}`] = Math.round(held.get(r) ?? r.endTime - r.startTime);
  }
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
  const note =
    'ms per file a worker was busy with it (import, hooks, tests), written by bench/suite-timing.ts --durations';
  writeFileSync(out, `${JSON.stringify({ note, files: sorted }, null, 2)}\n`);
  console.log(`wrote ${Object.keys(sorted).length} durations to ${out}`);
}

/**
 * How long each file held its worker. The report's times span first to last test only, so a
 * file's import and beforeAll (an `npm pack`, a synth, an emulator start) are missing; the time
 * since its worker's previous file ended holds them. Workers are rebuilt from the report: each
 * file, in start order, goes to the worker that became free last before its first test.
 */
function occupancy(results: Report['testResults'], workers: number) {
  const free = Array.from({ length: workers }, () => report.startTime);
  const held = new Map<Report['testResults'][number], number>();
  for (const r of [...results].sort((a, b) => a.startTime - b.startTime)) {
    const ready = free.map((t, i) => [t, i] as const).filter(([t]) => t <= r.startTime);
    const [since, lane] = ready.length
      ? ready.reduce((a, b) => (b[0] > a[0] ? b : a))
      : [r.startTime, free.indexOf(Math.min(...free))];
    held.set(r, r.endTime - since);
    free[lane] = Math.max(free[lane] as number, r.endTime);
  }
  return held;
}
