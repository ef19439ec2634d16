import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const agentsDoc = readFileSync(join(root, 'docs/agents.md'), 'utf8');

interface Row {
  framework: string;
  pkg: string;
  range: string;
  tested: string;
}

/** The rows of docs/agents.md's "Supported framework versions" table. */
function tableRows(): Row[] {
  const section = agentsDoc.split('## Supported framework versions')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => /^\| [^-]/.test(line) && !line.startsWith('| Framework'))
    .map((line) => {
      const cells = line.split('|').map((cell) => cell.trim().replaceAll('`', ''));
      return { framework: cells[1], pkg: cells[2], range: cells[3], tested: cells[4] } as Row;
    });
}

/** Bare packages the framework folders import (lib/frameworks/<name>/**). */
function frameworkImports(): Set<string> {
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        const source = readFileSync(path, 'utf8');
        for (const [, spec] of source.matchAll(/(?:from|import\()\s*'([^'.][^']*)'/g)) {
          if (spec?.startsWith('node:')) continue;
          const parts = (spec as string).split('/');
          found.add(spec?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string));
        }
      }
    }
  };
  walk(join(root, 'lib/frameworks'));
  return found;
}

const parse = (version: string) => version.split('.').map(Number) as [number, number, number];

/** `^x.y.z` as npm reads it: same major (same minor below 1.0), and at least x.y.z. */
function satisfiesCaret(version: string, range: string): boolean {
  const [lo, v] = [parse(range.slice(1)), parse(version)];
  if (v[0] !== lo[0] || (lo[0] === 0 && v[1] !== lo[1])) return false;
  for (let i = 0; i < 3; i++) if (v[i] !== lo[i]) return (v[i] as number) > (lo[i] as number);
  return true;
}

describe('supported framework versions (docs/agents.md)', () => {
  const rows = tableRows();

  it('lists every framework package, each once', () => {
    // Assess
    expect(rows.length).toBeGreaterThanOrEqual(8);
    expect(new Set(rows.map((r) => r.pkg)).size).toBe(rows.length);
  });

  it("gives each package's peer range and its tested devDependency as package.json does", () => {
    // Assess
    for (const row of rows) {
      expect(manifest.peerDependencies[row.pkg], row.pkg).toBe(row.range);
      expect(manifest.peerDependenciesMeta[row.pkg]?.optional, row.pkg).toBe(true);
      expect(manifest.devDependencies[row.pkg], row.pkg).toBe(row.tested);
      expect(row.range, row.pkg).toMatch(/^\^\d+\.\d+\.\d+$/);
      expect(satisfiesCaret(row.tested, row.range), `${row.pkg} ${row.tested}`).toBe(true);
    }
  });

  it('covers every package a framework folder imports that is not a dependency', () => {
    // Prepare
    const listed = new Set(rows.map((r) => r.pkg));

    // Act
    const sdks = [...frameworkImports()].filter((pkg) => !manifest.dependencies?.[pkg]);

    // Assess
    expect(sdks.length).toBeGreaterThan(0);
    expect(sdks.filter((pkg) => !listed.has(pkg))).toEqual([]);
  });

  it('reads npm caret ranges as npm does', () => {
    // Assess
    expect(satisfiesCaret('7.0.173', '^7.0.173')).toBe(true);
    expect(satisfiesCaret('7.1.0', '^7.0.173')).toBe(true);
    expect(satisfiesCaret('7.0.172', '^7.0.173')).toBe(false);
    expect(satisfiesCaret('8.0.0', '^7.0.173')).toBe(false);
    expect(satisfiesCaret('0.21.0', '^0.20.0')).toBe(false);
  });
});
