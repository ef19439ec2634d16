import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** An integration some package declares, not loaded yet. */
export interface Candidate {
  readonly name: string;
  readonly package: string;
  readonly exportName: string;
  readonly load: () => Promise<Record<string, unknown>>;
  /** The module file, when discovery reads the file system (absent inside a bundle). */
  readonly file?: string;
  /** Directories `requires` resolve from; absent inside a bundle (the bundler resolved them). */
  readonly searchFrom?: readonly string[];
  /** Built-ins state their requirements up front, so a missing SDK is never imported. */
  readonly requires?: readonly string[];
  readonly extra?: string;
}

export type Warn = (message: string) => void;

const here = dirname(fileURLToPath(import.meta.url));

/** Our own file next to this one: `.js` once built, `.ts` when run from source. */
function ownFile(relative: string): string {
  const js = resolve(here, `${relative}.js`);
  return existsSync(js) ? js : resolve(here, `${relative}.ts`);
}

/** The integrations this project ships: name → [module next to this file, framework package]. */
const BUILTINS: readonly (readonly [string, string, string])[] = [
  ['openai', '../openai/tools', '@openai/agents'],
  ['ai-sdk', '../ai-sdk/tools', 'ai'],
  ['langgraph', '../langgraph/tools', '@langchain/langgraph'],
  ['adk', '../adk/tools', '@google/adk'],
  ['strands', '../strands/tools', '@strands-agents/sdk'],
  ['mastra', '../mastra/tools', '@mastra/core'],
];

/** The integrations this project ships; found like a plugin's, before any plugin. */
export function builtinCandidates(root: string): Candidate[] {
  return BUILTINS.map(([name, relative, sdk]) => {
    const file = ownFile(relative);
    return {
      name,
      package: 'agent-kernel-lambda',
      exportName: 'INTEGRATION',
      file,
      load: () => import(pathToFileURL(file).href),
      searchFrom: [root],
      requires: [sdk],
      extra: sdk,
    };
  });
}

/** Node's lookup: `<dir>/node_modules/<name>` from `from` up to the file system root. */
export function findPackageDir(name: string, from: string): string | undefined {
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Whether a bare specifier's package is installed where `from` can import it. */
export function isInstalled(specifier: string, from: readonly string[]): boolean {
  const parts = specifier.split('/');
  const pkg = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
  return from.some((dir) => findPackageDir(pkg, dir) !== undefined);
}

function readJson(file: string): Record<string, unknown> {
  const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error('not a JSON object');
  }
  return value as Record<string, unknown>;
}

/**
 * Integrations declared by the app's dependencies, in package.json order:
 * `"agentKernel": {"integrations": {"<name>": "./file.js#EXPORT"}}` (no `#`: the default export).
 */
export function pluginCandidates(root: string, warn: Warn): Candidate[] {
  const rootManifest = join(root, 'package.json');
  if (!existsSync(rootManifest)) return [];
  let app: Record<string, unknown>;
  try {
    app = readJson(rootManifest);
  } catch (err) {
    warn(`The app's package.json (${rootManifest}) cannot be read: ${String(err)}.`);
    return [];
  }
  const names = new Set<string>();
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    const deps = app[field];
    if (deps && typeof deps === 'object') for (const dep of Object.keys(deps)) names.add(dep);
  }
  const out: Candidate[] = [];
  for (const dep of names) {
    // A dependency that is not installed cannot declare anything.
    const dir = findPackageDir(dep, root);
    if (!dir) continue;
    let manifest: Record<string, unknown>;
    try {
      manifest = readJson(join(dir, 'package.json'));
    } catch (err) {
      warn(`Package "${dep}": its package.json cannot be read (${String(err)}); skipped.`);
      continue;
    }
    const declared = (manifest.agentKernel as Record<string, unknown> | undefined)?.integrations;
    if (declared === undefined) continue;
    if (typeof declared !== 'object' || declared === null || Array.isArray(declared)) {
      warn(`Package "${dep}": "agentKernel.integrations" is not an object; skipped.`);
      continue;
    }
    for (const [name, target] of Object.entries(declared)) {
      if (typeof target !== 'string' || !target) {
        warn(
          `Integration "${name}" of package "${dep}": its entry is not a "path#export" string; skipped.`,
        );
        continue;
      }
      const [path = '', exportName = 'default'] = target.split('#');
      const file = resolve(dir, path);
      out.push({
        name,
        package: dep,
        exportName,
        file,
        load: () => import(pathToFileURL(file).href),
        searchFrom: [dir, root],
      });
    }
  }
  return out;
}
