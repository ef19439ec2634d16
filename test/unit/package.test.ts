import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const read = (file: string) =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8'));
const manifest = read('package.json');
const build = read('tsconfig.build.json');
const major = (version: string) => Number(/(\d+)/.exec(version)?.[1]);

describe('package.json', () => {
  it('runs the tests on the Node the project pins (node_modules/.bin/node, first on PATH)', () => {
    // Assess
    expect(major(process.versions.node)).toBeGreaterThanOrEqual(22);
    expect(process.versions.node).toBe(manifest.devDependencies.node);
  });

  it('prints no AWS SDK Node-version warning (the SDK warns below Node 22 only)', () => {
    // Prepare: a client's first send is where the SDK checks the Node version.
    const script = [
      "import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';",
      "const credentials = { accessKeyId: 'a', secretAccessKey: 'b' };",
      "const client = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials, maxAttempts: 1 });",
      'await client.send(new ListTablesCommand({})).catch(() => {});',
    ].join('\n');

    // Act
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      encoding: 'utf8',
    });

    // Assess
    expect(run.status).toBe(0);
    expect(run.stderr).not.toContain('NodeVersionSupportWarning');
  });

  it('declares Node 22 as the floor, the pinned Node meeting it', () => {
    // Assess
    expect(manifest.engines.node).toMatch(/^>=22\./);
    expect(major(manifest.devDependencies.node)).toBeGreaterThanOrEqual(22);
  });

  it('builds exactly the modules its exports point at, each with types before import', () => {
    // Prepare
    const targets = Object.entries(manifest.exports).filter(([key]) => key !== './package.json');

    // Act
    const sources = targets.map(([, target]) => {
      const { types, import: js } = target as { types: string; import: string };
      expect(Object.keys(target as object)).toEqual(['types', 'import']);
      expect(types.replace(/\.d\.ts$/, '.js')).toBe(js);
      return js.replace(/^\.\/dist\//, 'lib/').replace(/\.js$/, '.ts');
    });

    // Assess
    expect([...sources].sort()).toEqual([...build.files].sort());
    expect(manifest.files).toContain('dist');
  });
});
