import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { CheckpointSnapshotSchema } from '../../../lib/frameworks/langgraph/checkpointer.js';
import { loadSlot } from '../../../lib/frameworks/langgraph/state.js';

const SlotSchema = z.object({ schemaVersion: z.literal(1), checkpoints: CheckpointSnapshotSchema });

/** A serialised value, a write, an entry and a slot: valid, or one field off, or a stray key. */
const serialized = fc.oneof(
  fc.record({ type: fc.constant('json'), text: fc.oneof(fc.json(), fc.nat()) }),
  fc.record({ type: fc.constant('json'), json: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ type: fc.constantFrom('bytes', 'json'), base64: fc.base64String() }),
  fc.record({ type: fc.constant('json') }),
  fc.anything({ maxDepth: 1 }),
);
const write = fc.record(
  {
    taskId: fc.string(),
    idx: fc.oneof(fc.integer(), fc.constant('1')),
    channel: fc.string(),
    value: serialized,
    taskPath: fc.string(),
    stray: fc.nat(),
  },
  { requiredKeys: ['taskId', 'idx', 'channel', 'value'] },
);
const entry = fc.record(
  {
    ns: fc.string(),
    id: fc.string(),
    parentId: fc.oneof(fc.string(), fc.nat()),
    checkpoint: serialized,
    metadata: serialized,
    writes: fc.array(write, { maxLength: 3 }),
    stray: fc.nat(),
  },
  { requiredKeys: ['ns', 'id', 'checkpoint', 'metadata', 'writes'] },
);
const slot = fc.record(
  {
    schemaVersion: fc.constantFrom(1, 2),
    checkpoints: fc.record(
      { schemaVersion: fc.constantFrom(1, 2), entries: fc.array(entry, { maxLength: 3 }) },
      { requiredKeys: ['schemaVersion', 'entries'] },
    ),
    stray: fc.nat(),
  },
  { requiredKeys: ['schemaVersion', 'checkpoints'] },
);

describe('loadSlot (the LangGraph slot, checked by hand on every turn)', () => {
  it('accepts exactly what the slot schema accepts, with the same data', () => {
    fc.assert(
      fc.property(slot, (state) => {
        // Act
        let loaded: unknown;
        let refused: unknown;
        try {
          loaded = loadSlot('s1', state as never);
        } catch (err) {
          refused = err;
        }
        const schema = SlotSchema.safeParse(state);

        // Assess
        expect(refused === undefined).toBe(schema.success);
        if (schema.success) expect(loaded).toStrictEqual(schema.data.checkpoints);
        else expect(refused).toMatchObject({ code: 'session-corrupt' });
      }),
      { numRuns: 500 },
    );
  });
});
