/**
 * How an agents module outside this clone finds its imports, in the local commands (the Lambda
 * bundles do the same with esbuild: infra/bundling.ts `agentsBundling`). A resolve hook
 * (agents-resolve-hook.mjs), ahead of tsx's: `#agents` means the module from anywhere;
 * `agent-kernel-lambda[/subpath]` means this clone's source, so the module runs on the kernel of
 * the functions that load it (one copy of every class); and a bare import the module's own
 * project cannot resolve comes from this clone's node_modules, else fails naming the importing
 * file and the install command. The file's URL still goes down the chain, so tsx loads a `.ts`
 * module as it loads any other.
 */
import { readFileSync } from 'node:fs';
import { register } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');

export function registerAgentsImports(entry: string | undefined): void {
  register(new URL('./agents-resolve-hook.mjs', import.meta.url), {
    data: {
      agents: entry ? pathToFileURL(entry).href : undefined,
      kernel: kernelSources(),
      root: pathToFileURL(`${ROOT}/`).href,
    },
  });
}

/**
 * `agent-kernel-lambda` and each of its subpaths (package.json `exports`, `./dist/x.js`) → the
 * source file it is built from (`lib/x.ts`), as file URLs.
 */
export function kernelSources(root: string = ROOT): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { import?: string }>;
  };
  const sources: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const built = typeof target === 'string' ? target : target.import;
    if (!built?.startsWith('./dist/') || !built.endsWith('.js')) continue;
    const file = `${built.slice('./dist/'.length, -'.js'.length)}.ts`;
    sources[`${manifest.name}${subpath.slice(1)}`] = pathToFileURL(join(root, 'lib', file)).href;
  }
  return sources;
}
