import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { RunRecordSchema } from '../../../lib/app/ports/run-records.js';
import { AgentReplySchema, PausedReplySchema } from '../../../lib/core/requests.js';
import * as transport from '../../../lib/transport/index.js';
import { ERROR_CODES } from '../../../lib/transport/index.js';
import { alphabet, docsHandler, METHODS, servedRoutes, servedTemplate } from './http-routes.js';

/** The schemas an example may name: the wire's, and the replies and run records HTTP answers. */
const schemas: Record<string, z.core.$ZodType> = {
  ...(transport as unknown as Record<string, z.core.$ZodType>),
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
    const parsed = schema ? z.safeParse(schema, value) : undefined;

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

  const table = doc.slice(doc.indexOf('## HTTP API'), doc.indexOf('### Headers'));
  const documented = [...table.matchAll(/^\| `([A-Z]+)` \| `(\/[^`]*)` \|/gm)].map(
    (m) => `${m[1]} ${m[2]}`,
  );

  it('documents every HTTP route the handler serves and the API creates, and no other', async () => {
    // Act
    const { served, created } = await servedRoutes(documented);

    // Assess
    expect(documented.length).toBeGreaterThanOrEqual(6);
    expect(served).toEqual([...documented].sort());
    expect(created).toEqual([...documented].sort());
  }, 60_000);

  it('serves no undocumented route of five or six segments, route words or any others', async () => {
    // Prepare
    const handler = docsHandler();
    const segment = fc.oneof(
      fc.constantFrom(...alphabet(documented)),
      fc.stringMatching(/^[a-zA-Z0-9._~-]{1,12}$/),
    );

    // Act, Assess
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...METHODS),
        fc.array(segment, { minLength: 5, maxLength: 6 }),
        async (method, segments) => {
          const template = await servedTemplate(handler, method, segments, documented);
          expect([undefined, ...documented]).toContain(template);
        },
      ),
      { numRuns: 3000 },
    );
  }, 60_000);
});
