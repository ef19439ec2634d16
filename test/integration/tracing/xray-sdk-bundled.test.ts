import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE } from '../../../infra/bundling.js';
import { startFakeDaemon } from '../../unit/tracing/helpers.js';

// As deployed: the user's aws-xray-sdk-core bundled with our code into one file, no
// node_modules beside it. Our bridge cannot require the SDK, so it takes the Subsegment class
// from Lambda's facade segment; the user's subsegment must still name our tool span as parent.
const ROOT = resolve(import.meta.dirname, '../../..');
const LAMBDA_PARENT = '53995c3f42cd8ad8';
const TRACE = '1-5759e988-bd862e3fe1be46a994272793';
let dir: string;
let daemon: Awaited<ReturnType<typeof startFakeDaemon>>;

beforeAll(async () => {
  daemon = await startFakeDaemon();
  dir = mkdtempSync(join(tmpdir(), 'xray-bundle-'));
});
afterAll(async () => {
  await daemon?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ENTRY = `
import AWSXRay from 'aws-xray-sdk-core';
import { inSpan, traceChild } from ${JSON.stringify(join(ROOT, 'lib/core/tracer.ts'))};
import { CloudWatchTracer } from ${JSON.stringify(join(ROOT, 'lib/tracing/cloudwatch.ts'))};
const tracer = new CloudWatchTracer({ sink: () => {} });
await inSpan(tracer, 'run', {}, { kind: 'run' }, () =>
  traceChild('bundled_tool', 'tool', { tool: 'bundled_tool' }, async () => {
    const sub = AWSXRay.getSegment().addNewSubsegment('user-bundled');
    await new Promise((r) => setTimeout(r, 5));
    sub.close();
  }),
);
await new Promise((r) => setTimeout(r, 100));
await tracer.close();
`;

describe('X-Ray SDK interop in a bundle', () => {
  it('nests the bundled SDK subsegment under our tool span', async () => {
    // Prepare
    const entry = join(dir, 'entry.mjs');
    const outfile = join(dir, 'out', 'index.mjs');
    writeFileSync(entry, ENTRY);
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: BUNDLE.platform,
      format: BUNDLE.format,
      target: BUNDLE.target,
      mainFields: [...BUNDLE.mainFields],
      minify: BUNDLE.minify,
      banner: { js: BUNDLE.banner },
      nodePaths: [join(ROOT, 'node_modules')],
      logLevel: 'error',
    });

    // Act
    const run = spawnSync(process.execPath, [outfile], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        LAMBDA_TASK_ROOT: dir,
        AWS_LAMBDA_FUNCTION_NAME: 'worker',
        _X_AMZN_TRACE_ID: `Root=${TRACE};Parent=${LAMBDA_PARENT};Sampled=1`,
        AWS_XRAY_DAEMON_ADDRESS: daemon.address,
        AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
      },
    });
    const docs = await daemon.waitFor(3);

    // Assess: nothing beside the bundle resolves the SDK, as on Lambda.
    expect(run.status, run.stderr).toBe(0);
    expect(() => createRequire(outfile)('aws-xray-sdk-core')).toThrow();
    const tool = docs.find((d) => d.annotations?.tool === 'bundled_tool');
    expect(docs.find((d) => d.name === 'user-bundled')).toMatchObject({
      trace_id: TRACE,
      parent_id: tool?.id,
    });
    expect(tool?.id).toBeDefined();
  });
});
