import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest files first, across projects: on two cores a long file started last is the suite's
 * tail (vitest's own order groups files by project and, without a cache, sorts by file size, so
 * the 122-line SIGKILL file that runs for minutes started near the end). A file's duration is
 * vitest's cached one from the last local run, else the committed test/file-durations.json
 * (`npm run bench:suite -- <report> --durations test/file-durations.json` writes it), else
 * unknown: unknown files go first, as vitest does, since they may be long.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const known = committed();
    const root = this.ctx.config.root;
    const duration = (spec: TestSpecification): number => {
      const key = `${spec.project.name}:${relative(root, spec.moduleId)}`;
      return this.ctx.cache.getFileTestResults(key)?.duration ?? known[key] ?? Infinity;
    };
    return [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        duration(b) - duration(a) ||
        0,
    );
  }
}

function committed(): Record<string, number> {
  try {
    const url = new URL('./file-durations.json', import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { files: Record<string, number> }).files;
  } catch {
    return {};
  }
}
