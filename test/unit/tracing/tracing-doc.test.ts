import { readFileSync } from 'node:fs';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import type { SpanKind } from '../../../lib/core/tracer.js';
import { OtelTracer } from '../../../lib/tracing/index.js';
import { RENAMED } from '../../../lib/tracing/otel-attributes.js';

/**
 * docs/tracing.md's "Attributes by backend" table lists every span attribute the OTel presets
 * export, with a mark for each preset that gets it. The code is exercised with every attribute
 * name it maps (RENAMED, the principal, one of our own), payloads and an error on a span of each
 * kind; what each preset's exporter receives must equal the table, both ways.
 */

const PRESETS = ['otlp', 'logfire', 'langfuse', 'openllmetry'] as const;
const KINDS: SpanKind[] = ['run', 'model', 'tool', 'hook', 'delivery', 'aws', 'internal'];
/** The table's row for our own attributes (`agent_kernel.<snake_case name>`). */
const OWN = 'agent_kernel.<attribute>';

function documented(): Map<string, Set<string>> {
  const doc = readFileSync(new URL('../../../docs/tracing.md', import.meta.url), 'utf8');
  const section = doc.split('## Attributes by backend')[1]?.split('\n## ')[0] ?? '';
  const rows = section.split('\n').filter((line) => /^\| `/.test(line));
  const table = new Map<string, Set<string>>();
  for (const row of rows) {
    const cells = row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const key = cells[0]?.replace(/`/g, '') ?? '';
    const marks = new Set(PRESETS.filter((_, i) => cells[i + 1] === 'yes'));
    table.set(key, marks);
  }
  return table;
}

async function exported(): Promise<Map<string, Set<string>>> {
  const exporters = PRESETS.map(() => new InMemorySpanExporter());
  const tracer = new OtelTracer({
    env: { LANGFUSE_PUBLIC_KEY: 'pk-lf-t', LANGFUSE_SECRET_KEY: 'sk-lf-t', LOGFIRE_TOKEN: 't' },
    config: { otel: [...PRESETS], capturePayloads: true, principal: 'hash' },
    exporters,
  });
  const attributes = Object.fromEntries(
    [...Object.keys(RENAMED), 'principal', 'awsOperation'].map((name) => [name, `v-${name}`]),
  );
  const run = tracer.startSpan('run', attributes, { kind: 'run' });
  for (const kind of KINDS.filter((k) => k !== 'run')) {
    const span = tracer.startSpan(kind, attributes, { kind, parent: run });
    span.setPayload('input', { asked: 1 });
    span.setPayload('output', { answered: 2 });
    span.recordError(new Error('failed'));
    span.end();
  }
  run.setPayload('input', ['hi']);
  run.setPayload('output', 'hello');
  run.recordError(new Error('failed'));
  run.end();
  await tracer.flush();
  const keys = new Map<string, Set<string>>();
  PRESETS.forEach((preset, i) => {
    for (const span of exporters[i]?.getFinishedSpans() ?? []) {
      for (const key of Object.keys(span.attributes)) {
        const row = key.startsWith('agent_kernel.') && !documented().has(key) ? OWN : key;
        if (!keys.has(row)) keys.set(row, new Set());
        keys.get(row)?.add(preset);
      }
    }
  });
  await tracer.close();
  return keys;
}

const sorted = (table: Map<string, Set<string>>) =>
  Object.fromEntries([...table].sort().map(([key, marks]) => [key, [...marks].sort()]));

describe('docs/tracing.md attribute table', () => {
  it('lists exactly the attributes each OTel preset exports', async () => {
    // Act
    const code = await exported();

    // Assess
    expect(sorted(documented())).toEqual(sorted(code));
  });
});
