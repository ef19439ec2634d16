/**
 * The esbuild options of every function bundle, in one place: the CDK functions
 * (constructs/kernel-function.ts) and `npm run bench:bundles` both build from them, so the bench
 * measures what gets deployed. No CDK import here: the bench loads this file alone.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// ESM bundles still meet CommonJS dependencies that call require().
export const CREATE_REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * Left out of the bundle with `bundleAwsSdk: false`: the Lambda Node.js 22 runtime ships AWS SDK for
 * JavaScript v3 (every `@aws-sdk/*` package, in a version of its own choosing) and resolves these
 * imports from it. The `@smithy/*` packages the SDK depends on come with it.
 */
export const AWS_SDK_EXTERNALS: readonly string[] = ['@aws-sdk/*'];

export const BUNDLE = {
  platform: 'node',
  format: 'esm',
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  /** Minified, yet error classes keep their names (`"type":"ConfigError"` in logs, not "at"). */
  keepNames: true,
  banner: CREATE_REQUIRE_BANNER,
  /** An `index.mjs.map` beside the bundle, without the sources' text. */
  sourcemap: 'external',
  sourcesContent: false,
  /** Set on every function (kernel-function.ts): stack traces point into the TypeScript. */
  nodeOptions: '--enable-source-maps',
} as const;

/** The OpenTelemetry presets of lib/tracing (config.ts OTEL_PRESETS; a test keeps them equal). */
export const OTEL_PRESETS = ['otlp', 'langfuse', 'logfire', 'openllmetry'] as const;

/**
 * esbuild `define`s for what the deployment uses: without an OTel preset the OTel backend's lazy
 * import is dead code (lib/tracing/select.ts), so the bundle holds no OTel SDK (nor the Secrets
 * Manager client the presets' credentials need); without a model key in an SSM parameter
 * (`-c modelParameterName`) the SSM client is left out (lib/aws/wiring/model-secret.ts).
 */
export function bundleDefine(
  tracing: readonly string[],
  options: { modelParameter?: boolean } = {},
): Record<string, string> {
  const otel = tracing.some((name) => (OTEL_PRESETS as readonly string[]).includes(name));
  return {
    ...(otel ? {} : { 'process.env.AGENT_KERNEL_BUNDLE_OTEL': '"false"' }),
    ...(options.modelParameter ? {} : { 'process.env.AGENT_KERNEL_BUNDLE_SSM': '"false"' }),
  };
}

/** What esbuild must not bundle: the AWS SDK, unless it is to be bundled (the pinned version). */
export function externalModules(bundleAwsSdk: boolean): string[] {
  return bundleAwsSdk ? [] : [...AWS_SDK_EXTERNALS];
}

/**
 * The agents module the bundles alias `#agents` to: the `agentsEntry` context, else the local
 * commands' setting AGENT_KERNEL_AGENTS (lib/local/agents-entry.ts), else none (package.json's
 * `#agents`, the demo). A path that names no file stops the synth here, in one sentence.
 */
export const AGENTS_ENV = 'AGENT_KERNEL_AGENTS';

export function chosenAgentsEntry(
  context: string | undefined,
  projectRoot: string,
  env: NodeJS.ProcessEnv = process.env,
  fail: (message: string) => never = exitWith,
): string | undefined {
  const chosen = context || env[AGENTS_ENV] || undefined;
  if (chosen && !existsSync(resolve(projectRoot, chosen))) {
    const from = context ? 'the agentsEntry context' : AGENTS_ENV;
    fail(
      `error: agents module not found: ${resolve(projectRoot, chosen)} (from ${from})\n` +
        'hint: name a .ts or .js file exporting createAgents() or agents (docs/agents.md).',
    );
  }
  return chosen;
}

/** A user's mistake ends the CDK app in their words, not in a stack trace. */
function exitWith(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/**
 * Bundling takes seconds per function: one line each, so a long `npm run synth` shows it is
 * moving. Only under the CDK CLI (it sets CDK_OUTDIR), not in the tests' in-process synths.
 */
export function announceBundling(
  functionId: string,
  agentsEntry: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  write = defaultWrite,
): void {
  if (!env.CDK_OUTDIR) return;
  write(
    `agent-kernel: bundling ${functionId} (#agents: ${agentsEntry ?? 'package.json "imports"'})…`,
  );
}

function defaultWrite(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * The esbuild arguments and bundling environment for a user's agents module: `#agents` is that
 * file; `agent-kernel-lambda[/subpath]` is this project's source (one kernel in the bundle, the one
 * the functions are built from, whether or not the module's own project installed the package);
 * and a bare import its own project lacks is found in this project's node_modules (NODE_PATH,
 * esbuild's nodePaths), as the local commands do (lib/local/agents-resolve-hook.mjs).
 */
export function agentsBundling(
  agentsEntry: string,
  projectRoot: string,
): { esbuildArgs: Record<string, string>; environment: Record<string, string> } {
  const esbuildArgs: Record<string, string> = {
    '--alias:#agents': resolve(projectRoot, agentsEntry),
  };
  for (const [specifier, source] of Object.entries(kernelSourceFiles(projectRoot))) {
    esbuildArgs[`--alias:${specifier}`] = source;
  }
  return { esbuildArgs, environment: { NODE_PATH: join(projectRoot, 'node_modules') } };
}

/** package.json `exports` (`./dist/x.js`) → the source each is built from (`lib/x.ts`). */
export function kernelSourceFiles(projectRoot: string): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { import?: string }>;
  };
  const sources: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const built = typeof target === 'string' ? target : target.import;
    if (!built?.startsWith('./dist/') || !built.endsWith('.js')) continue;
    const file = `${built.slice('./dist/'.length, -'.js'.length)}.ts`;
    sources[`${manifest.name}${subpath.slice(1)}`] = join(projectRoot, 'lib', file);
  }
  return sources;
}
