// A module resolve hook (node:module register) for the local commands, ahead of tsx's. Plain JS:
// it runs on the loader thread, before tsx. lib/local/agents-entry.ts registers it with:
// - agents: the URL `#agents` means, from anywhere;
// - kernel: `agent-kernel-lambda[/subpath]` → this clone's source, so an agents module in its own
//   project runs on the same kernel as the functions that load it (one copy of every class);
// - root: this clone's URL. A bare import that the importing file's own project cannot resolve
//   is retried from the clone's node_modules; when neither has it, the error names the importing
//   file and the command that installs the package there.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let settings = { agents: undefined, kernel: {}, root: undefined };

export function initialize(data) {
  settings = data;
}

const isBare = (specifier) => !/^(\.|\/|[a-z][a-z0-9+.-]*:|#)/i.test(specifier);

/** The package name of a bare specifier: `@scope/name` or `name`. */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The folder of the nearest package.json above a file (its project), else the file's folder. */
function projectOf(file) {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return dirname(file);
  }
}

export async function resolve(specifier, context, next) {
  if (specifier === '#agents' && settings.agents) return next(settings.agents, context);
  const kernel = settings.kernel[specifier];
  if (kernel) return next(kernel, context);
  try {
    return await next(specifier, context);
  } catch (error) {
    const parent = context.parentURL;
    const outside = parent?.startsWith('file:') && !parent.startsWith(settings.root);
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !isBare(specifier) || !outside) throw error;
    try {
      return await next(specifier, { ...context, parentURL: `${settings.root}package.json` });
    } catch {
      const file = fileURLToPath(parent);
      const name = packageOf(specifier);
      const missing = new Error(
        `Cannot find package '${name}' imported from ${file}: install it in that project ` +
          `(cd ${projectOf(file)} && npm install ${name}).`,
      );
      missing.code = 'ERR_MODULE_NOT_FOUND';
      throw missing;
    }
  }
}
