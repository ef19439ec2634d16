/**
 * `npx tsx bench/suite-timing.ts <vitest-json-report> [count]`: the suite's wall time and its
 * slowest files from a vitest JSON report (`npm test -- --reporter=json --outputFile=<file>`, as
 * .ci/run writes one), the figures docs/benchmarks.md#test-suite quotes.
 */
import { readFileSync } from 'node:fs';

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

const [file, count = '12'] = process.argv.slice(2);
if (!file) {
  console.error('usage: npx tsx bench/suite-timing.ts <vitest-json-report> [count]');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
const end = Math.max(...report.testResults.map((r) => r.endTime));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const root = `${process.cwd()}/`;
console.log(
  `suite: ${seconds(end - report.startTime)} wall, ${report.testResults.length} files, ` +
    `${report.numPassedTests} passed, ${report.numFailedTests} failed, ` +
    `${report.numPendingTests} skipped`,
);
console.log('slowest files (time from their first to their last test):');
const files = report.testResults
  .map((r) => ({ name: r.name.replace(root, ''), ms: r.endTime - r.startTime, status: r.status }))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, Number(count));
for (const f of files)
  console.log(
    `  ${seconds(f.ms).padStart(8)}  ${f.name}${f.status === 'passed' ? '' : ` (${f.status})`}`,
  );
const failed = report.testResults.flatMap((r) =>
  r.assertionResults
    .filter((a) => a.status === 'failed')
    .map((a) => `${r.name.replace(root, '')} > ${a.title}`),
);
if (failed.length > 0) console.log(`failed:\n  ${failed.join('\n  ')}`);
