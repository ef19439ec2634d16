import { createRequire } from 'node:module';

/**
 * The integration and runner contract test files, each with the framework SDK it needs. Run them
 * alone with `npm run test:contract`; a file whose SDK is not installed is left out of the run
 * with one line saying which package to install (the files import their SDK at the top).
 */
export const CONTRACT_FILES: Readonly<Record<string, readonly string[]>> = {
  'test/integration/tools/openai-contract.test.ts': ['@openai/agents'],
  'test/integration/frameworks/openai-runner-contract.test.ts': ['@openai/agents'],
  'test/integration/frameworks/ai-sdk-contract.test.ts': ['ai'],
  'test/integration/frameworks/ai-sdk-runner-contract.test.ts': ['ai', '@ai-sdk/openai'],
  'test/integration/frameworks/langgraph-contract.test.ts': ['@langchain/langgraph'],
  'test/integration/frameworks/langgraph-runner-contract.test.ts': [
    '@langchain/langgraph',
    '@langchain/openai',
  ],
  'test/integration/frameworks/adk-contract.test.ts': ['@google/adk'],
  'test/integration/frameworks/adk-runner-contract.test.ts': ['@google/adk'],
  'test/integration/frameworks/strands-contract.test.ts': ['@strands-agents/sdk'],
  'test/integration/frameworks/strands-runner-contract.test.ts': ['@strands-agents/sdk'],
  'test/integration/frameworks/mastra-contract.test.ts': ['@mastra/core'],
  'test/integration/frameworks/mastra-runner-contract.test.ts': ['@mastra/core'],
};

/** The contract files whose SDK does not resolve, each with its one-line reason. */
export function missingContractSdks(
  resolves: (pkg: string) => boolean = packageResolves,
): { file: string; reason: string }[] {
  const out: { file: string; reason: string }[] = [];
  for (const [file, packages] of Object.entries(CONTRACT_FILES)) {
    const missing = packages.filter((pkg) => !resolves(pkg));
    if (missing.length === 0) continue;
    const list = missing.join(' ');
    out.push({ file, reason: `skipped ${file}: ${list} not installed (npm install ${list})` });
  }
  return out;
}

function packageResolves(pkg: string): boolean {
  try {
    createRequire(`${process.cwd()}/package.json`).resolve(`${pkg}/package.json`);
    return true;
  } catch {
    // Packages whose exports hide package.json: their main entry.
    try {
      createRequire(`${process.cwd()}/package.json`).resolve(pkg);
      return true;
    } catch {
      return false;
    }
  }
}
