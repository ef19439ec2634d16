import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { RunRecordSchema } from '../../../lib/app/ports/run-records.js';
import { AgentReplySchema, PausedReplySchema } from '../../../lib/core/requests.js';
import * as transport from '../../../lib/transport/index.js';
import { ERROR_CODES } from '../../../lib/transport/index.js';
import { servedRoutes } from './http-routes.js';

/** The schemas an example may name: the wire's, and the replies and run records HTTP answers. */
const schemas: Record<string, z.ZodType> = {
  ...(transport as unknown as Record<string, z.ZodType>),
  AgentReplySchema,
  PausedReplySchema,
  RunRecordSchema,
};

const doc = readFileSync(
  fileURLToPath(new URL('../../../docs/protocol.md', import.meta.url)),
  'utf8',
);

/** Each JSON example follows a `<!-- schema: Name -->` or `<!-- example -->` comment. */
const examples = [...doc.matchAll(/<!-- (schema: (\w+)|example) -->\n```json\n([\s\S]*?)```/g)].map(
  (m, i) => ({ name: m[2] ?? `example ${i}`, schema: m[2], json: m[3] ?? '' }),
);

describe('docs/protocol.md', () => {
  it('has its examples', () => {
    // Assess
    expect(examples.length).toBeGreaterThanOrEqual(17);
    expect(doc.match(/```json/g)?.length).toBe(examples.length);
  });

  it.each(examples.map((e) => [e.name, e] as const))('has a valid %s example', (_name, example) => {
    // Prepare
    const value = JSON.parse(example.json);
    const schema = example.schema ? schemas[example.schema] : undefined;

    // Act
    const parsed = schema?.safeParse(value);

    // Assess
    if (example.schema) expect(schema, example.schema).toBeDefined();
    if (parsed) expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it('lists every error code with its source and meaning', () => {
    // Prepare
    const rows = [...doc.matchAll(/^\| `([a-z0-9-]+)` \| (transport|front|runtime) \| (.+) \|$/gm)];
    const documented = Object.fromEntries(rows.map((r) => [r[1], { source: r[2], meaning: r[3] }]));

    // Assess
    expect(documented).toEqual(ERROR_CODES);
  });

  it('documents every HTTP route the handler serves and the API creates, and no other', async () => {
    // Prepare
    const table = doc.slice(doc.indexOf('## HTTP API'), doc.indexOf('### Headers'));
    const documented = [...table.matchAll(/^\| `([A-Z]+)` \| `(\/[^`]*)` \|/gm)].map(
      (m) => `${m[1]} ${m[2]}`,
    );

    // Act
    const { served, created } = await servedRoutes(documented);

    // Assess
    expect(documented.length).toBeGreaterThanOrEqual(6);
    expect(served).toEqual([...documented].sort());
    expect(created).toEqual([...documented].sort());
    // Every path of up to five route words: ~1.3 M handler calls, slow on a busy 2-core machine.
  }, 180_000);
});
