import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where test/e2e/helpers/pack.ts keeps this run's one `npm pack` tarball. */
    packCache: string;
  }
}

/**
 * One `npm pack` per run: its `prepack` rebuilds dist/ with tsc (tens of seconds on a busy
 * two-core machine), and the source does not change during a run, so the e2e files that install
 * the package share one tarball. A fresh folder per run: a later run packs the tree as it is then.
 */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'ak-pack-cache-'));
  project.provide('packCache', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
