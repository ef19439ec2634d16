import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lazySchema } from '../../../lib/core/lazy-schema.js';

describe('lazySchema', () => {
  it('builds the schema on first use, once', () => {
    let builds = 0;
    const Schema = lazySchema(() => {
      builds++;
      return z.strictObject({ id: z.string().min(1) });
    });
    expect(builds).toBe(0);
    expect(Schema.safeParse({ id: 'a' }).success).toBe(true);
    expect(Schema.safeParse({ id: '' }).success).toBe(false);
    expect(builds).toBe(1);
  });

  it('stands in for the schema: inside others, extended, its shape and instanceof', () => {
    const Id = lazySchema(() => z.string().regex(/^[a-z]+$/, 'id must be lower case'));
    const Item = lazySchema(() => z.strictObject({ id: Id }));
    const Outer = z.strictObject({
      items: z.array(Item).min(1),
      more: Item.extend({ n: z.number() }),
    });
    expect(Outer.parse({ items: [{ id: 'a' }], more: { id: 'b', n: 1 } })).toEqual({
      items: [{ id: 'a' }],
      more: { id: 'b', n: 1 },
    });
    const failed = Outer.safeParse({ items: [{ id: 'A' }], more: { id: 'b', n: 1 } });
    expect(failed.error?.issues[0]).toMatchObject({
      path: ['items', 0, 'id'],
      message: 'id must be lower case',
    });
    expect(Object.keys(Item.shape)).toEqual(['id']);
    expect(Item instanceof z.ZodObject).toBe(true);
    expect(Id.optional().safeParse(undefined).success).toBe(true);
  });
});
