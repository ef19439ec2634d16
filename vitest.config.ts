import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { missingContractSdks } from './test/contract-files.js';
import LongestFirst from './test/sequencer.js';

// The local stack's offline model streams at a person's pace by default; tests want it fast
// (child processes the tests start inherit it). test/e2e/offline-pace.test.ts sets its own.
const env = { AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND: '0' };

// Vitest's default is one worker less than the cores: one file at a time on a two-core machine,
// while most integration and e2e files spend part of their time waiting on child processes,
// emulators and sockets. Files are independent (ephemeral ports, their own tables and temp
// dirs), so run one more than the cores: with two on two cores the CPU was busy 1.56 of 2
// (700 s), with three 1.78 (586 s). AGENT_KERNEL_TEST_WORKERS overrides (1 for a serial run).
const maxWorkers = Number(process.env.AGENT_KERNEL_TEST_WORKERS) || availableParallelism() + 1;

// A contract file whose framework SDK is not installed is left out, saying so in one line.
const withoutSdk = missingContractSdks();
for (const { reason } of withoutSdk) console.warn(reason);

// One project per test kind so each can be run alone (`vitest run --project unit`).
export default defineConfig({
  test: {
    maxWorkers,
    // Longest files first across projects (test/sequencer.ts, test/file-durations.json).
    sequence: { sequencer: LongestFirst },
    // infra and e2e fill up with later issues; an empty project is not a failure.
    passWithNoTests: true,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          env,
          // Imports are most of a unit file's cost (lib, zod, the framework SDKs: 266 s of import
          // against 101 s of tests over 111 files): a worker's module graph is shared by its
          // files, as in infra. Unit files mock no modules, stub no globals or env and fake no
          // timers; vitest still resets vi config and mocks per file.
          isolate: false,
          // 5 s is vitest's default: an esbuild bundle in otel-lazy.test.ts outlasted it at a
          // load of 24 on two cores. A limit for hangs, not a speed claim.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...withoutSdk.map((m) => m.file)],
          environment: 'node',
          env,
          // dynalite and DynamoDB Local, started once per run (endpoints via inject).
          globalSetup: ['test/global-setup-dynamodb.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          environment: 'node',
          env,
          // A CDK synth bundles every function with esbuild: seconds when idle, far more on a
          // busy two-core machine. Vitest's 5 s default made it fail for being slow, not wrong;
          // at a load of 18–24 `npx tsx infra/deploy.ts --help` took over 60 s. Hang limits only.
          testTimeout: 300_000,
          // Every infra file imports aws-cdk-lib, cdk-nag and the stack (seconds of CPU each);
          // sharing a worker's module graph imports them once per worker instead of once per
          // file (8 files: 64 s → 29 s of CPU). The files keep no module state of their own
          // beyond their temp dirs, and vitest still resets vi config and mocks per file.
          isolate: false,
          // The first in-process synth of a worker loads aws-cdk-lib and cdk-nag: over 120 s at a
          // load of 17–24. The files set no lower limits of their own.
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          env,
          // One `npm pack` per run, shared by the files that install the package.
          globalSetup: ['test/global-setup-pack.ts'],
        },
      },
    ],
  },
});
