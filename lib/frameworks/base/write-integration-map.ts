import { writeIntegrationMap } from './integration-map.js';

// CLI: npm run integration-map -- [appRoot] [outFile]
const [root = process.cwd(), outFile = 'integration-map.js'] = process.argv.slice(2);
const entries = writeIntegrationMap(root, outFile);
console.log(
  `Wrote ${outFile}: ${entries.length ? entries.map((e) => `${e.name} (${e.package})`).join(', ') : 'no integrations'}.`,
);
