import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const DEMO_PLUGIN_DIR = resolve(import.meta.dirname, '../../fixtures/demo-plugin');

/** A plugin package to put under the app's node_modules: the demo fixture or generated files. */
export type PluginFixture =
  | 'demo'
  | { manifest: Record<string, unknown> | string; files?: Record<string, string> };

/**
 * An app root in a fresh temp dir whose package.json depends on `plugins`, installed as real
 * folders under its node_modules (what npm does with a `file:` dependency it packs).
 */
export function makeApp(
  plugins: Record<string, PluginFixture>,
  field: 'dependencies' | 'devDependencies' | 'optionalDependencies' = 'dependencies',
): string {
  const root = mkdtempSync(join(tmpdir(), 'ak-app-'));
  const deps = Object.fromEntries(Object.keys(plugins).map((name) => [name, `file:./${name}`]));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'app', [field]: deps }));
  for (const [name, plugin] of Object.entries(plugins)) {
    const dir = join(root, 'node_modules', name);
    mkdirSync(dir, { recursive: true });
    if (plugin === 'demo') {
      cpSync(DEMO_PLUGIN_DIR, dir, { recursive: true });
      continue;
    }
    const manifest =
      typeof plugin.manifest === 'string'
        ? plugin.manifest
        : JSON.stringify({ name, version: '1.0.0', type: 'module', ...plugin.manifest });
    writeFileSync(join(dir, 'package.json'), manifest);
    for (const [file, text] of Object.entries(plugin.files ?? {})) {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
  }
  return root;
}
