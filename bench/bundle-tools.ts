/**
 * What bench:bundles builds and times with: a function (or peer) bundled as the CDK stack bundles
 * it (infra/bundling.ts), and one cold import in a fresh Node.js process.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { build, type Metafile } from 'esbuild';
import { BUNDLE, bundleDefine, externalModules } from '../infra/bundling.js';

export const ROOT = resolve(import.meta.dirname, '..');

/** A scratch folder inside the project, so a bundle's external `@aws-sdk/*` imports resolve. */
export function scratchDir(): string {
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  return mkdtempSync(join(cache, 'bundles-'));
}

// What the functions read at cold start: present, so importing a bundle runs its real init.
export const BENCH_ENV: NodeJS.ProcessEnv = {
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

export interface BundleRequest {
  /** The entry file, relative to the project. */
  entry: string;
  outfile: string;
  bundleAwsSdk: boolean;
  /** `#agents` aliased to this file (relative to the project). */
  agents?: string | undefined;
  tracing?: readonly string[];
}

/** One bundle with infra/bundling.ts's options; returns the inputs it holds. */
export async function bundleFile(request: BundleRequest): Promise<string[]> {
  const { agents, tracing = ['cloudwatch'] } = request;
  const result = await build({
    entryPoints: [join(ROOT, request.entry)],
    outfile: request.outfile,
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
    external: externalModules(request.bundleAwsSdk),
    ...(agents ? { alias: { '#agents': join(ROOT, agents) } } : {}),
    define: bundleDefine(tracing),
    metafile: true,
    logLevel: 'error',
  });
  return Object.keys((result.metafile as Metafile).inputs);
}

export interface Timing {
  /** Spawn to exit, as seen from here. */
  process: number;
  /** The import alone, inside the process. */
  import: number;
  /** The import's CPU time (user + system), which a busy machine disturbs less. */
  cpu: number;
}

/** One fresh process importing `file`. */
export function coldImport(
  file: string,
  node: string,
  extraEnv: Record<string, string> = {},
): Timing {
  const script = `const t = performance.now(), c = process.cpuUsage();
await import(${JSON.stringify(file)});
const u = process.cpuUsage(c);
process.stdout.write(JSON.stringify({ import: performance.now() - t, cpu: (u.user + u.system) / 1000 }));`;
  const started = performance.now();
  const result = spawnSync(node, ['--input-type=module', '-e', script], {
    env: { ...BENCH_ENV, ...extraEnv },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`import of ${file} failed: ${result.stderr}`);
  return { process: elapsed, ...JSON.parse(result.stdout) };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** A Node.js binary per measured version: `current` is this process's, others come from npx. */
export function nodeBinary(version: string): string {
  if (version === 'current') return process.execPath;
  const found = spawnSync(
    'npx',
    ['-y', '-p', `node@${version}`, 'node', '-e', 'process.stdout.write(process.execPath)'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (found.status !== 0) throw new Error(`node@${version} via npx failed: ${found.stderr}`);
  return found.stdout.trim();
}

export const ms = (value: number) => `${value.toFixed(0)} ms`;
