import { describe, expect, it } from 'vitest';
import { findForbiddenKey, type PausedRun, PausedRunSchema } from '../../../lib/core/index.js';

const run: PausedRun = {
  schemaVersion: 1,
  runId: 'r1',
  sessionId: 's1',
  agent: 'assistant',
  runner: 'openai',
  createdAt: 1,
  expiresAt: 2,
  status: 'pending',
  interruptions: [{ id: 'c1', kind: 'tool-approval', toolName: 'refund', arguments: { n: 1 } }],
  state: { any: ['json', 1] },
};

describe('PausedRunSchema', () => {
  it('accepts a v1 paused run', () => {
    // Act
    const parsed = PausedRunSchema.safeParse(run);

    // Assess
    expect(parsed.success).toBe(true);
  });

  it.each([
    ['a future schemaVersion', { ...run, schemaVersion: 2 }],
    ['an unknown status', { ...run, status: 'done' }],
    ['an unknown interruption kind', { ...run, interruptions: [{ id: 'x', kind: 'poke' }] }],
    ['an extra key', { ...run, extra: true }],
    ['a __proto__ key in state', { ...run, state: JSON.parse('{"__proto__":{}}') }],
    [
      'a constructor key in arguments',
      {
        ...run,
        interruptions: [{ id: 'x', kind: 'input', arguments: { constructor: {} } }],
      },
    ],
  ])('rejects %s', (_, value) => {
    // Act
    const parsed = PausedRunSchema.safeParse(value);

    // Assess
    expect(parsed.success).toBe(false);
  });

  it('names the path of a forbidden key', () => {
    // Act
    const path = findForbiddenKey({ a: [{ b: JSON.parse('{"__proto__":1}') }] });

    // Assess
    expect(path).toBe('a.0.b.__proto__');
  });
});
