import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { writeIntegrationMap } from '../../../lib/frameworks/base/index.js';
import { makeApp } from './fixture-app.js';

const project = resolve(import.meta.dirname, '../../..');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

// The bundle's entry: what a Lambda handler module would do.
const entry = `
import './integration-map.js';
import * as z from 'zod';
import { availableIntegrations, getIntegration } from ${JSON.stringify(join(project, 'lib/frameworks/base/index.ts'))};
import { defineTool, Executor, InMemoryToolLedger } from ${JSON.stringify(join(project, 'lib/tools/index.ts'))};

const names = [...(await availableIntegrations({ root: '/nowhere' })).keys()];
const ledger = new InMemoryToolLedger();
const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => a + b,
});
const tool = (await getIntegration('demo')).exportTool(add, { executor: new Executor({ ledger }) });
const result = await tool.run({ a: 2, b: 3 }, { id: 'call-1' });
console.log(JSON.stringify({ names, result, ledger: ledger.entries.map((e) => [e.callId, e.outcome]) }));
`;

describe('integration map in an esbuild bundle', () => {
  it('discovers the plugin from the static map where there is no node_modules', async () => {
    // Prepare
    const app = makeApp({ 'agent-kernel-demo-plugin': 'demo' });
    const out = mkdtempSync(join(tmpdir(), 'ak-bundle-'));
    dirs.push(app, out);
    const written = writeIntegrationMap(app, join(app, 'integration-map.js'));
    writeFileSync(join(app, 'entry.ts'), entry);
    await build({
      entryPoints: [join(app, 'entry.ts')],
      outfile: join(out, 'index.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      nodePaths: [join(project, 'node_modules')],
      logLevel: 'silent',
    });

    // Act
    const { stdout } = await promisify(execFile)(process.execPath, ['index.mjs'], { cwd: out });

    // Assess
    expect(written.map((e) => e.name)).toEqual(['demo']);
    expect(readFileSync(join(app, 'integration-map.js'), 'utf8')).toContain(
      'import("./node_modules/agent-kernel-demo-plugin/index.js")',
    );
    expect(JSON.parse(stdout)).toEqual({
      names: ['demo'],
      result: { ok: true, value: 5 },
      ledger: [['call-1', 'ok']],
    });
  });
});
