import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const FRAMEWORKS = ['openai', 'ai-sdk', 'langgraph', 'adk', 'strands', 'mastra'];
/** Every page says how each of these survives a turn; history is LangGraph's graph state. */
const ROWS = ['framework context', 'run options', 'pause', 'resume', 'errors'];

/** The first column of the "Round-trip fidelity" table of a framework page. */
function fidelityRows(framework: string): string[] {
  const page = readFileSync(new URL(`../../../docs/frameworks/${framework}.md`, import.meta.url));
  const section =
    page
      .toString()
      .split(/^## Round-trip fidelity$/m)[1]
      ?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('|---'))
    .map((line) => line.split('|')[1]?.trim() ?? '');
}

describe('framework pages: the round-trip fidelity table', () => {
  it.each(FRAMEWORKS)('docs/frameworks/%s.md has one, with every row', (framework) => {
    const rows = fidelityRows(framework);
    expect(rows[0]).toBe('what');
    expect(rows).toEqual(expect.arrayContaining(ROWS));
    expect(rows.some((row) => row === 'history' || row === 'graph state')).toBe(true);
  });
});

describe('docs/integrations.md: one fidelity table across frameworks', () => {
  it('has a column per framework and every row, each cell filled', () => {
    const page = readFileSync(new URL('../../../docs/integrations.md', import.meta.url)).toString();
    const section = page.split(/^## Round-trip fidelity across frameworks$/m)[1]?.split(/^## /m)[0];
    const lines = (section ?? '')
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('|---'));
    const cells = lines.map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
    expect(cells[0]).toEqual(['what', ...FRAMEWORKS]);
    expect(cells.map((row) => row[0])).toEqual(expect.arrayContaining([...ROWS, 'history']));
    for (const row of cells) {
      expect(row).toHaveLength(FRAMEWORKS.length + 1);
      expect(row.every((cell) => cell.length > 0)).toBe(true);
    }
  });
});
