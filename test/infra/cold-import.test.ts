import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE, bundleDefine, externalModules } from '../../infra/bundling.js';

const ROOT = resolve(import.meta.dirname, '../..');
const cache = join(ROOT, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const out = mkdtempSync(join(cache, 'cold-import-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/**
 * Counts every zod schema built (each one's `_zod` internals are made by one constructor in
 * zod's core) into `globalThis.__zodSchemas`, in the bundle only: the count is the bundle's.
 */
const countSchemas: Plugin = {
  name: 'count-zod-schemas',
  setup(b) {
    b.onLoad({ filter: /zod[\\/]v4[\\/]core[\\/]core\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const marker = 'function Internals(def) {';
      if (!source.includes(marker)) throw new Error('zod core changed: update the counter');
      return {
        contents: source.replace(
          marker,
          `${marker} globalThis.__zodSchemas = (globalThis.__zodSchemas ?? 0) + 1;`,
        ),
        loader: 'js',
      };
    });
  },
};

/** functions/<name>.ts bundled as the stack bundles it, the counter added. */
async function bundle(name: string): Promise<{ file: string; inputs: string[]; kept: string[] }> {
  const outfile = join(out, name, 'index.mjs');
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
    banner: { js: BUNDLE.banner },
    external: externalModules(true),
    define: bundleDefine(['cloudwatch']),
    plugins: [countSchemas],
    metafile: true,
    logLevel: 'error',
  });
  // `kept`: the inputs with code in the bundle (a module tree-shaken away is still an input, and
  // may leave a constant of a few bytes behind).
  const output = Object.values(result.metafile?.outputs ?? {})[0];
  const kept = Object.entries(output?.inputs ?? {}).filter(
    ([, input]) => input.bytesInOutput > 100,
  );
  return {
    file: outfile,
    inputs: Object.keys(result.metafile?.inputs ?? {}),
    kept: kept.map(([path]) => path),
  };
}

/** Imports the bundle in a fresh process, as Lambda's init does; the schemas built meanwhile. */
function schemasBuiltAtImport(file: string): number {
  return Number(afterImport(file, 'globalThis.__zodSchemas ?? 0'));
}

/** Whether zod's own module ran at import (it sets `globalThis.__zod_globalConfig`). */
function zodRanAtImport(file: string): boolean {
  return afterImport(file, "typeof globalThis.__zod_globalConfig === 'object'") === 'true';
}

function afterImport(file: string, expression: string): string {
  const script = `await import(${JSON.stringify(file)}); process.stdout.write(String(${expression}));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      ...process.env,
      AWS_REGION: 'us-east-1',
      AWS_LAMBDA_FUNCTION_NAME: 'cold-import',
      TABLE_NAME: 'agents',
      RUN_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/runs.fifo',
      AGENT_NAMES: 'demo',
      AUTH_MODE: 'hs256',
      JWT_SECRET: 'cold-import-secret-0123456789',
    },
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`import failed: ${child.stderr}`);
  return child.stdout;
}

// The cold start of the functions every streamed token and WebSocket message goes through
// (docs/benchmarks.md, "Next to hand-written peers"): no schema is built before a message is.
describe('cold imports build no zod schema', { timeout: 120_000 }, () => {
  it('ws-message', async () => {
    const { file, inputs } = await bundle('ws-message');
    expect(inputs.some((input) => /zod[\\/]v4[\\/]core[\\/]core\.js$/.test(input))).toBe(true);
    expect(schemasBuiltAtImport(file)).toBe(0);
  });

  it('counts what it claims to: a bundle that does build one at import reports it', async () => {
    // The worker still builds its agents (and their tools' schemas) at import.
    const { file } = await bundle('worker');
    expect(schemasBuiltAtImport(file)).toBeGreaterThan(0);
  });
});

// Fan-out checks its message, its configuration (config-fast.ts, tracing/config-fast.ts, which
// answer as the schemas do) and its connection items (connection-items.ts) by hand: no zod text
// is left in its bundle to compile at a cold start.
describe('the fan-out bundle holds no zod at all', { timeout: 120_000 }, () => {
  const zod = (kept: string[]) => kept.filter((input) => /node_modules[\\/]zod[\\/]/.test(input));

  // The connection functions and the authorizer too (quota overrides: quota-limits-check.ts).
  it.each(['fanout', 'ws-connect', 'ws-disconnect', 'authorizer'])('%s', async (name) => {
    const { file, kept } = await bundle(name);
    expect(zod(kept)).toEqual([]);
    expect(zodRanAtImport(file)).toBe(false);
  });

  it('ws-message (which checks client messages with zod) holds it and runs it', async () => {
    const { file, kept } = await bundle('ws-message');
    expect(zod(kept).length).toBeGreaterThan(0);
    expect(zodRanAtImport(file)).toBe(true);
  });
});

// Fan-out checks its one message by hand (events-queue-check.ts): the wire protocol's zod schemas
// and the schema gate stay out of its bundle.
describe('the fan-out bundle holds no protocol schemas', { timeout: 120_000 }, () => {
  const schemaGate = (kept: string[]) =>
    kept.filter((input) => /lib\/transport\/(protocol|parse)\.ts$/.test(input));

  it('fanout', async () => {
    const { kept } = await bundle('fanout');
    expect(schemaGate(kept)).toEqual([]);
    expect(kept.some((input) => input.endsWith('lib/transport/events-queue-check.ts'))).toBe(true);
  });

  it('ws-message (which checks client messages with them) does hold them', async () => {
    expect(schemaGate((await bundle('ws-message')).kept)).toHaveLength(2);
  });
});

// Fan-out admits nothing: its bundle leaves the quota store to ws-connect's.
describe('the fan-out bundle holds no quota store', { timeout: 120_000 }, () => {
  const quotaStore = (kept: string[]) =>
    kept.some((input) => input.endsWith('lib/stores/dynamodb/quota-store.ts'));

  it('fanout', async () => {
    expect(quotaStore((await bundle('fanout')).kept)).toBe(false);
  });

  it('ws-connect (which admits connections) does hold it', async () => {
    expect(quotaStore((await bundle('ws-connect')).kept)).toBe(true);
  });
});

// ws-message and approvals check messages with zod/mini schemas (docs/benchmarks.md, "zod/mini on
// the message path"): classic zod's API (~70 KB more to compile at a cold start) stays out.
describe('the message functions bundle zod/mini, not classic zod', { timeout: 120_000 }, () => {
  const classic = (kept: string[]) =>
    kept.filter((input) => /node_modules[\\/]zod[\\/]v4[\\/]classic[\\/]/.test(input));
  const mini = (kept: string[]) =>
    kept.filter((input) => /node_modules[\\/]zod[\\/]v4[\\/]mini[\\/]/.test(input));

  it.each(['ws-message', 'approvals'])('%s', async (name) => {
    const { kept } = await bundle(name);
    expect(classic(kept)).toEqual([]);
    expect(mini(kept).length).toBeGreaterThan(0);
  });

  it('counts what it claims to: the worker (tools and frameworks use classic zod) holds it', async () => {
    expect(classic((await bundle('worker')).kept).length).toBeGreaterThan(0);
  });
});
