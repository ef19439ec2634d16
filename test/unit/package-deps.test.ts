import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const build = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));

// Static imports and re-exports (named lists hold no quotes), bare imports, dynamic imports.
const SPECIFIERS = [
  /^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]/gm,
  /^\s*import\s*['"]([^'"]+)['"]/gm,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
];
const specifiers = (text: string) =>
  SPECIFIERS.flatMap((re) => [...text.matchAll(re)].map((m) => m[1] as string));

/** Every module the build compiles (tsconfig.build.json's files and what they import). */
function compiled(): Map<string, string> {
  const seen = new Map<string, string>();
  const queue: string[] = build.files.map((f: string) => resolve(root, f));
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const spec of specifiers(text)) {
      if (!spec.startsWith('.')) continue;
      const base = resolve(dirname(file), spec.replace(/\.js$/, ''));
      const next = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p));
      if (next) queue.push(next);
    }
  }
  return seen;
}

/** The packages the compiled modules import (types included: consumers' .d.ts need them). */
function importedPackages(): Set<string> {
  const packages = new Set<string>();
  for (const text of compiled().values()) {
    // Comments mention packages too (`import('x')` in prose): code lines only.
    const code = text.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
    for (const spec of specifiers(code)) {
      if (spec.startsWith('.') || spec.startsWith('node:') || spec.startsWith('#')) continue;
      if (builtinModules.includes(spec)) continue;
      const parts = spec.split('/');
      packages.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string));
    }
  }
  return packages;
}

describe('package dependencies', () => {
  it('depends only on what the built modules import; the clone’s own code (local stack, Lambda handlers) uses devDependencies', () => {
    // Act
    const imported = importedPackages();

    // Assess
    const unused = Object.keys(manifest.dependencies).filter(
      (name) => !imported.has(name) && !imported.has(name.replace(/^@types\//, '')),
    );
    expect(unused).toEqual([]);
    // jose, ws and @ag-ui/* serve the local stack and the functions, never an export.
    for (const name of ['jose', 'ws', '@ag-ui/core', '@ag-ui/encoder']) {
      expect(imported.has(name), name).toBe(false);
      expect(manifest.dependencies[name], name).toBeUndefined();
    }
  });

  it('declares every package the built modules import, as a dependency or a peer', () => {
    const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
    const undeclared = [...importedPackages()].filter(
      (name) => !(name in declared) && !(`@types/${name}` in declared),
    );
    expect(undeclared).toEqual([]);
  });

  it('packs with an emit-only build and type-checks before a publish', () => {
    // npm pack → prepack → build without checking (the suite packs once per run); npm publish
    // runs prepublishOnly first, so a published package is always type-checked.
    const { scripts } = manifest;
    expect(scripts.prepack).toBe('npm run build -- --noCheck');
    expect(scripts.build).toMatch(/&& tsc -p tsconfig\.build\.json$/);
    expect(scripts.prepublishOnly).toBe('npm run typecheck');
    expect(scripts.typecheck).toBe('tsc --noEmit');
  });
});
