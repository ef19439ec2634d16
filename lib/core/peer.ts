import { MissingDependency } from './errors.js';

/**
 * The package a failed import could not find, from Node's own error: ESM says `Cannot find
 * package 'x' imported from …` (ERR_MODULE_NOT_FOUND), CommonJS `Cannot find module 'x'`
 * (MODULE_NOT_FOUND). A missing relative file is not a package: undefined.
 */
export function missingPackageOf(err: unknown): string | undefined {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const name = /Cannot find (?:package|module) '([^']+)'/.exec(String(message))?.[1];
  if (!name || name.startsWith('.') || name.startsWith('/') || name.startsWith('file:')) {
    return undefined;
  }
  // `@scope/name/sub/path.js` or `name/sub` → the package to install.
  const parts = name.split('/');
  return name.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Imports an optional peer (an AWS SDK client, the OTel SDK, a framework SDK) the caller only
 * needs for `feature`. Not installed: `MissingDependency` naming the package and the command
 * (`… needs the package "x": npm install x`) instead of Node's bare module-not-found. The
 * import stays a literal dynamic import with a string in `load`, so bundlers still see (and can
 * drop) it.
 */
export async function importPeer<T>(load: () => Promise<T>, feature: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const pkg = missingPackageOf(err);
    if (pkg === undefined) throw err;
    throw new MissingDependency(pkg, feature, { cause: err });
  }
}
