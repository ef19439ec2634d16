import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { writeIntegrationMap } from './integration-map.js';

/**
 * CLI: `npm run integration-map -- <appRoot> <outFile>`. Both are required: a bare run prints
 * the usage rather than writing a file where it happens to run (the repo root, under npm).
 */
const USAGE =
  'usage: npm run integration-map -- <appRoot> <outFile>\n' +
  '  e.g. npm run integration-map -- . src/integration-map.js (see docs/integrations.md)';

function main([root, outFile, ...extra]: string[]): number {
  if (!root || !outFile || extra.length > 0 || root.startsWith('-')) {
    console.error(USAGE);
    return 2;
  }
  const appRoot = resolve(root);
  if (!existsSync(appRoot) || !statSync(appRoot).isDirectory()) {
    console.error(`error: app root not found: ${appRoot}`);
    console.error('hint: pass the directory holding your package.json and node_modules.');
    return 1;
  }
  const entries = writeIntegrationMap(appRoot, resolve(outFile));
  const found = entries.map((e) => `${e.name} (${e.package})`).join(', ');
  console.log(`Wrote ${outFile}: ${found || 'no integrations'}.`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
