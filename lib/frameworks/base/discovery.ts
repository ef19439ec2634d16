import { existsSync } from 'node:fs';
import { describeError, MissingDependency } from '../../core/errors.js';
import {
  builtinCandidates,
  type Candidate,
  isInstalled,
  pluginCandidates,
  type Warn,
} from './candidates.js';
import { IntegrationError } from './errors.js';
import { type Integration, integrationProblem } from './integration.js';
import { INTEGRATION_MAP_KEY, type IntegrationMapEntry } from './integration-map.js';

export interface DiscoveryLogger {
  warn(message: string): void;
}

export interface DiscoveryOptions {
  /** The app whose package.json lists the dependencies to search (default: process.cwd()). */
  root?: string;
  logger?: DiscoveryLogger;
  /** Search again instead of answering from the previous search. */
  refresh?: boolean;
}

interface Discovered {
  readonly available: ReadonlyMap<string, Integration>;
  /** Known integrations whose framework package is not installed: name → package to install. */
  readonly missing: ReadonlyMap<string, string>;
}

const defaults: { root?: string; logger: DiscoveryLogger } = {
  logger: { warn: (message) => console.warn(`[agent-kernel] ${message}`) },
};
const searches = new Map<string, Promise<Discovered>>();

/** Sets the default root and logger (tests, apps whose root is not the working directory). */
export function configureDiscovery(options: { root?: string; logger?: DiscoveryLogger }): void {
  if (options.root !== undefined) defaults.root = options.root;
  if (options.logger) defaults.logger = options.logger;
  searches.clear();
}

/** Every integration found, by name (cached; `refresh` searches again). */
export async function availableIntegrations(
  options: DiscoveryOptions = {},
): Promise<ReadonlyMap<string, Integration>> {
  return (await search(options)).available;
}

/** The integration named `name`: `IntegrationError` if unknown, `MissingDependency` if its SDK is absent. */
export async function getIntegration(
  name: string,
  options: DiscoveryOptions = {},
): Promise<Integration> {
  const found = await search(options);
  const integration = found.available.get(name);
  if (integration) return integration;
  const extra = found.missing.get(name);
  if (extra !== undefined) throw new MissingDependency(extra, `The "${name}" integration`);
  throw new IntegrationError(name, [...found.available.keys()]);
}

function search(options: DiscoveryOptions): Promise<Discovered> {
  const map = staticMap();
  const root = options.root ?? defaults.root ?? process.cwd();
  const key = map ? '\u0000map' : root;
  let found = searches.get(key);
  if (!found || options.refresh) {
    const logger = options.logger ?? defaults.logger;
    const warn: Warn = (message) => logger.warn(message);
    // Inside a bundle there is no node_modules: the build step's map is all there is.
    const candidates = map
      ? mapCandidates(map, warn)
      : [...builtinCandidates(root), ...pluginCandidates(root, warn)];
    found = discover(candidates, warn);
    searches.set(key, found);
  }
  return found;
}

function staticMap(): unknown {
  return (globalThis as Record<symbol, unknown>)[INTEGRATION_MAP_KEY];
}

function mapCandidates(map: unknown, warn: Warn): Candidate[] {
  if (!Array.isArray(map)) {
    warn('The integration map is not an array; no integration is available.');
    return [];
  }
  return (map as IntegrationMapEntry[]).map((entry) => ({
    name: entry.name,
    package: entry.package,
    exportName: entry.exportName,
    load: entry.load,
  }));
}

/** Loads every candidate; one bad plugin is warned about and skipped, never fatal. */
async function discover(candidates: readonly Candidate[], warn: Warn): Promise<Discovered> {
  const available = new Map<string, Integration>();
  const missing = new Map<string, string>();
  for (const candidate of candidates) {
    const where = `Integration "${candidate.name}" of package "${candidate.package}"`;
    if (available.has(candidate.name) || missing.has(candidate.name)) {
      warn(`${where}: the name is taken by an integration found earlier; skipped.`);
      continue;
    }
    const result = await load(candidate, (m) => warn(`${where}: ${m}; skipped.`));
    if (result === undefined) continue;
    if ('missing' in result) missing.set(candidate.name, result.missing);
    else available.set(candidate.name, result.integration);
  }
  return { available, missing };
}

type Loaded = { integration: Integration } | { missing: string } | undefined;

async function load(candidate: Candidate, skip: (message: string) => void): Promise<Loaded> {
  const { searchFrom, requires } = candidate;
  if (searchFrom && requires && !requires.every((r) => isInstalled(r, searchFrom))) {
    return { missing: candidate.extra ?? requires[0] ?? candidate.package };
  }
  if (candidate.file && !existsSync(candidate.file)) {
    skip(`its module ${candidate.file} does not exist`);
    return undefined;
  }
  let module: Record<string, unknown>;
  try {
    module = await candidate.load();
  } catch (err) {
    skip(`importing its module failed (${describeError(err)})`);
    return undefined;
  }
  if (!(candidate.exportName in module) || module[candidate.exportName] === undefined) {
    skip(`its module has no export "${candidate.exportName}"`);
    return undefined;
  }
  let value: unknown = module[candidate.exportName];
  if (typeof value === 'function') {
    try {
      value = isClass(value as () => unknown)
        ? new (value as new () => unknown)()
        : await (value as () => unknown)();
    } catch (err) {
      skip(`creating it failed (${describeError(err)})`);
      return undefined;
    }
  }
  const problem = integrationProblem(value);
  if (problem) {
    skip(problem);
    return undefined;
  }
  const integration = value as Integration;
  if (integration.name !== candidate.name) {
    skip(`it calls itself "${integration.name}", not the declared "${candidate.name}"`);
    return undefined;
  }
  if (searchFrom && !integration.requires.every((r) => isInstalled(r, searchFrom))) {
    return { missing: integration.extra };
  }
  return { integration };
}

function isClass(fn: (...args: never) => unknown): boolean {
  return /^class[\s{]/.test(Function.prototype.toString.call(fn));
}
