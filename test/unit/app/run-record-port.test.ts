import { describe, expect, it } from 'vitest';
import { RunRecordSchema, runNextSeq } from '../../../lib/app/ports/run-records.js';

const base = {
  schemaVersion: 1,
  runId: 'r1',
  sessionId: 's1',
  agent: 'demo',
  status: 'paused',
  createdAt: 1,
  updatedAt: 2,
} as const;

describe('the run record port', () => {
  it.each([
    ['a fraction', 1.5],
    ['a negative seq', -1],
    ['an unsafe integer', 2 ** 53],
    ['a string', '7'],
  ])('refuses %s as nextSeq or turnsBefore', (_name, value) => {
    // Act
    const seq = RunRecordSchema.safeParse({ ...base, nextSeq: value });
    const turns = RunRecordSchema.safeParse({ ...base, turnsBefore: value });

    // Assess
    expect(seq.success).toBe(false);
    expect(turns.success).toBe(false);
  });

  it('reads the next seq from the record, or from a paused reply written before the field', () => {
    // Prepare
    const typed = RunRecordSchema.parse({ ...base, nextSeq: 40, reply: { nextSeq: 8 } });
    const legacy = RunRecordSchema.parse({ ...base, reply: { status: 'paused', nextSeq: 8 } });
    const odd = RunRecordSchema.parse({ ...base, reply: { nextSeq: 'x' } });

    // Assess
    expect(runNextSeq(typed)).toBe(40);
    expect(runNextSeq(legacy)).toBe(8);
    expect(runNextSeq(odd)).toBe(0);
    expect(runNextSeq(undefined)).toBe(0);
  });
});
