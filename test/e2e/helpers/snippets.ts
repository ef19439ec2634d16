import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A TypeScript code block of a Markdown file. */
export interface Snippet {
  /** `README.md:42` (the block's first code line). */
  where: string;
  /** A file name for it: `README.md-42.ts`. */
  file: string;
  code: string;
  /** Preceded by `<!-- snippet: run -->`: a whole program that runs offline. */
  run: boolean;
}

/** README.md and every docs/**\/*.md. */
export function markdownFiles(root: string): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? docs(join(dir, entry.name))
        : entry.name.endsWith('.md')
          ? [join(dir, entry.name)]
          : [],
    );
  return [join(root, 'README.md'), ...docs(join(root, 'docs'))];
}

export function snippetsOf(root: string, path: string): Snippet[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const name = relative(root, path);
  const found: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i] as string)) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end] as string)) end++;
    const before = lines.slice(Math.max(0, i - 3), i).join('\n');
    found.push({
      where: `${name}:${start + 1}`,
      file: `${name.replaceAll('/', '_')}-${start + 1}.ts`,
      code: lines.slice(start, end).join('\n'),
      run: /<!--\s*snippet:\s*run\s*-->/.test(before),
    });
    i = end;
  }
  return found;
}
