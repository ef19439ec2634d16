import { defineConfig } from 'vitest/config';

// The local stack's offline model streams at a person's pace by default; tests want it fast
// (child processes the tests start inherit it). test/e2e/offline-pace.test.ts sets its own.
const env = { AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND: '0' };

// One project per test kind so each can be run alone (`vitest run --project unit`).
export default defineConfig({
  test: {
    // infra and e2e fill up with later issues; an empty project is not a failure.
    passWithNoTests: true,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          env,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
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
          // busy two-core machine. Vitest's 5 s default made it fail for being slow, not wrong.
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          env,
        },
      },
    ],
  },
});
