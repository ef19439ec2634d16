/**
 * A TypeScript loader for the tests' child processes (`node --import ./test/helpers/ts-hooks.mjs
 * file.ts`), in place of tsx there: in-thread synchronous hooks (`module.registerHooks`, Node
 * ≥ 22.15) that compile this repository's .ts files with esbuild and step aside for everything
 * else. tsx's off-thread hooks cost about 3 s of CPU per child that imports a framework SDK
 * (every one of the SDK's modules goes through them); here a package's module costs a function
 * call. The compile cache (NODE_COMPILE_CACHE, set by the spawning helper) keeps V8's code.
 */
import { existsSync, readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const tsconfigRaw = JSON.parse(
  readFileSync(new URL('../../tsconfig.json', import.meta.url), 'utf8'),
);

/** A file of this repository (not a package): the only ones whose `.js` may name a `.ts`. */
const own = (url) => url?.startsWith('file:') && !url.includes('/node_modules/');

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (own(context.parentURL) && specifier.startsWith('.') && specifier.endsWith('.js')) {
      const ts = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
      const js = new URL(specifier, context.parentURL);
      if (!existsSync(js) && existsSync(ts)) return nextResolve(ts.href, context);
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    const path = url.split('?')[0];
    if (!own(path) || !path.endsWith('.ts')) return nextLoad(url, context);
    const file = fileURLToPath(path);
    const { code } = transformSync(readFileSync(file, 'utf8'), {
      loader: 'ts',
      format: 'esm',
      target: 'node22',
      sourcefile: file,
      sourcemap: 'inline',
      tsconfigRaw,
    });
    return { format: 'module', source: code, shortCircuit: true };
  },
});
