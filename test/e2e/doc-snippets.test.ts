import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { root } from './helpers/cli.js';
import { markdownFiles, type Snippet, snippetsOf } from './helpers/snippets.js';

// Every TypeScript block of README.md and docs/**/*.md, as a reader copies it: type-checked as a
// module of its own (package imports resolve through the package's exports map to the source,
// `./lib/…` imports from the repository root), and the ones marked `<!-- snippet: run -->` run.
const DIR = join(root, 'test-results', 'snippets');
const snippets: Snippet[] = markdownFiles(root).flatMap((file) => snippetsOf(root, file));

/** tsconfig `paths`: `agent-kernel-lambda/<subpath>` → the source its `./dist/…` is built from. */
function exportPaths(): Record<string, string[]> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries<{ import?: string } | string>(manifest.exports)) {
    const built = typeof target === 'string' ? target : target.import;
    if (!built?.startsWith('./dist/')) continue;
    paths[`${manifest.name}${subpath.slice(1)}`] = [
      `./lib/${built.slice('./dist/'.length, -'.js'.length)}.ts`,
    ];
  }
  return paths;
}

beforeAll(() => {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  // `./lib/…` and `./examples/…` as from the repository root.
  symlinkSync('../../lib', join(DIR, 'lib'));
  symlinkSync('../../examples', join(DIR, 'examples'));
  for (const snippet of snippets) writeFileSync(join(DIR, snippet.file), `${snippet.code}\n`);
  const tsconfig = {
    extends: '../../tsconfig.json',
    compilerOptions: { noEmit: true, paths: exportPaths() },
    include: ['*.ts'],
  };
  writeFileSync(join(DIR, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
});

describe('the TypeScript blocks of README.md and docs/', () => {
  it('finds blocks in the README and the docs', () => {
    expect(snippets.filter((s) => s.where.startsWith('README.md')).length).toBeGreaterThan(2);
    expect(snippets.filter((s) => s.where.startsWith('docs/')).length).toBeGreaterThan(5);
    expect(snippets.some((s) => s.run)).toBe(true);
  });

  it('type-check as written (imports included)', () => {
    // Act
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const checked = spawnSync(process.execPath, [tsc, '-p', DIR], { encoding: 'utf8' });

    // Assess: each error named by its Markdown file and line.
    const errors = `${checked.stdout}${checked.stderr}`
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => {
        const at = /(?:^|\/)([^/\s]+?\.md-(\d+)\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
        const snippet = at && snippets.find((s) => s.file === at[1]);
        return snippet && at
          ? `${snippet.where.replace(/:\d+$/, '')}:${Number(at[2]) + Number(at[3]) - 1}: ${at[5]}`
          : line;
      });
    expect(errors).toEqual([]);
    expect(checked.status).toBe(0);
  }, 120_000);

  for (const snippet of snippets.filter((s) => s.run)) {
    it(`runs offline: ${snippet.where}`, () => {
      // Act: no model key; the block starts what it needs.
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
      delete env.OPENAI_API_KEY;
      delete env.OPENAI_BASE_URL;
      const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');
      const ran = spawnSync(
        process.execPath,
        [tsx, '--tsconfig', join(DIR, 'tsconfig.json'), join(DIR, snippet.file)],
        {
          cwd: DIR,
          encoding: 'utf8',
          env,
          timeout: 60_000,
        },
      );

      // Assess
      expect(ran.stderr).toBe('');
      expect(ran.status).toBe(0);
    }, 90_000);
  }
});
