import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACT_FILES, missingContractSdks } from '../contract-files.js';

function contractTestFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return contractTestFiles(path);
    return /-contract\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('contract test files', () => {
  it('names every framework contract file with the SDK it needs', () => {
    // The store contract (dynamodb-contract) needs no framework SDK.
    const found = contractTestFiles('test/integration').filter((f) => !f.includes('/stores/'));
    expect(found.sort()).toEqual(Object.keys(CONTRACT_FILES).sort());
  });

  it('leaves out a file whose SDK is absent, with one line naming the package to install', () => {
    // Act
    const missing = missingContractSdks((pkg) => pkg !== '@google/adk');

    // Assess
    expect(missing).toEqual([
      {
        file: 'test/integration/frameworks/adk-contract.test.ts',
        reason:
          'skipped test/integration/frameworks/adk-contract.test.ts: @google/adk not installed (npm install @google/adk)',
      },
      {
        file: 'test/integration/frameworks/adk-runner-contract.test.ts',
        reason:
          'skipped test/integration/frameworks/adk-runner-contract.test.ts: @google/adk not installed (npm install @google/adk)',
      },
    ]);
    expect(missing.every((m) => !m.reason.includes('\n'))).toBe(true);
  });

  it('leaves out nothing here, where every SDK is installed', () => {
    expect(missingContractSdks()).toEqual([]);
  });
});
