/**
 * The esbuild options of every function bundle, in one place: the CDK functions
 * (constructs/kernel-function.ts) and `npm run bench:bundles` both build from them, so the bench
 * measures what gets deployed. No CDK import here: the bench loads this file alone.
 */

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
  banner: CREATE_REQUIRE_BANNER,
  /** An `index.mjs.map` beside the bundle, without the sources' text. */
  sourcemap: 'external',
  sourcesContent: false,
  /** Set on every function (kernel-function.ts): stack traces point into the TypeScript. */
  nodeOptions: '--enable-source-maps',
} as const;

/** What esbuild must not bundle: the AWS SDK, unless it is to be bundled (the pinned version). */
export function externalModules(bundleAwsSdk: boolean): string[] {
  return bundleAwsSdk ? [] : [...AWS_SDK_EXTERNALS];
}
