import { spawnSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { type LocalEndpoint as Endpoint, startDynalite } from '../lib/local/dynalite.js';
import { startDynamoDbLocal } from '../lib/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynaliteEndpoint: string;
    dynamoLocalEndpoint: string;
  }
}

const JAVA_HINT =
  'hint: install a Java 17+ runtime (e.g. `apt-get install openjdk-17-jre-headless`, ' +
  '`brew install openjdk@17`) and put `java` on PATH; `npm run test:unit` needs no Java.';

/**
 * DynamoDB Local is a Java program: without Java 17 every integration test would fail on a
 * crashed child process. Stop the run first, in one sentence, instead.
 */
export function javaProblem(run: typeof spawnSync = spawnSync): string | undefined {
  const java = run('java', ['-version'], { encoding: 'utf8' });
  if (java.error) {
    return 'Java not found: the integration tests run DynamoDB Local, which needs Java 17+.';
  }
  const text = `${java.stderr ?? ''}${java.stdout ?? ''}`;
  const major = Number(/version "(?:1\.)?(\d+)/.exec(text)?.[1] ?? Number.NaN);
  if (!(major >= 17)) {
    return `Java 17+ needed for DynamoDB Local; \`java -version\` says: ${text.split('\n')[0]}`;
  }
  return undefined;
}

/**
 * A JVM starting on a machine busy with other work can take minutes, and the free port picked
 * for it can be taken before it binds: a generous bound, then once more on a fresh port.
 */
const DYNAMODB_LOCAL_START_MS = 180_000;

export async function startDynamoDbLocalOnce(
  start: (timeoutMs: number) => Promise<Endpoint> = startDynamoDbLocal,
  timeoutMs = DYNAMODB_LOCAL_START_MS,
): Promise<Endpoint> {
  try {
    return await start(timeoutMs);
  } catch (first) {
    try {
      return await start(timeoutMs);
    } catch (second) {
      throw new Error(
        `DynamoDB Local did not start, twice (each within ${timeoutMs / 1000} s). ` +
          `First: ${messageOf(first)} Then: ${messageOf(second)}`,
      );
    }
  }
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const problem = javaProblem();
  if (problem) {
    // A thrown error would come with vitest's stack trace: one message, then stop the run.
    process.stderr.write(`\nerror: ${problem}\n${JAVA_HINT}\n\n`);
    process.exit(1);
  }
  const [dynalite, local] = await Promise.all([startDynalite(), startDynamoDbLocalOnce()]);
  project.provide('dynaliteEndpoint', dynalite.url);
  project.provide('dynamoLocalEndpoint', local.url);
  return async () => {
    await Promise.all([dynalite.stop(), local.stop()]);
  };
}
