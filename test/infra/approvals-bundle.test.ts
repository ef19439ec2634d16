import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE, bundleDefine, externalModules } from '../../infra/bundling.js';

const ROOT = resolve(import.meta.dirname, '../..');
// Inside the repo, so esbuild resolves packages as the stack does; a clean install has no .cache.
const cache = join(ROOT, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const out = mkdtempSync(join(cache, 'approvals-bundle-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** functions/<name>.ts built as the stack builds it (infra/bundling.ts), with its metafile. */
async function bundle(name: string, bundleAwsSdk: boolean) {
  const outfile = join(out, bundleAwsSdk ? 'bundled' : 'runtime', name, 'index.mjs');
  const result = await build({
    entryPoints: [join(ROOT, 'functions', `${name}.ts`)],
    outfile,
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
    external: externalModules(bundleAwsSdk),
    // The stack's default tracing (cloudwatch): no OTel backend in the bundle.
    define: bundleDefine(['cloudwatch']),
    metafile: true,
    write: false,
    logLevel: 'error',
  });
  const js = result.outputFiles.find((file) => file.path.endsWith('.mjs'));
  return {
    bytes: js?.contents.length ?? 0,
    inputs: Object.keys((result.metafile as Metafile).inputs),
  };
}

// What only a function that runs agents may load: the agents entry, the runtime, the frameworks.
const FORBIDDEN = [
  /^examples\//,
  /^lib\/frameworks\//,
  /^lib\/core\/runtime\.ts$/,
  /node_modules\/@openai\//,
  /node_modules\/@langchain\//,
  /node_modules\/ai\//,
  /node_modules\/openai\//,
];

// esbuild bundles the whole import graph: seconds each on a loaded 2-core machine.
describe('the approvals bundle', () => {
  it.each([
    [false, 300],
    [true, 700],
  ])(
    'with bundleAwsSdk=%s stays under %i KB and loads no agents entry or framework',
    async (sdk, kb) => {
      // Act
      const { bytes, inputs } = await bundle('approvals', sdk);

      // Assess
      expect(inputs).toContain('lib/aws/handlers/approvals.ts');
      expect(inputs.filter((input) => FORBIDDEN.some((re) => re.test(input)))).toEqual([]);
      expect(bytes / 1024).toBeLessThan(kb);
    },
  );

  it('is as small as ws-message, which routes the same jobs', async () => {
    // Act
    const approvals = await bundle('approvals', true);
    const message = await bundle('ws-message', true);
    const worker = await bundle('worker', true);

    // Assess: the check above would catch the agents entry; this one a regression in kind.
    expect(approvals.bytes).toBeLessThan(message.bytes * 1.1);
    expect(worker.inputs.some((input) => FORBIDDEN[0]?.test(input))).toBe(true);
  });
});
