import type { Message } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { explicitDecisions } from '../../../lib/a2a/mapping.js';

/** A follow-up message whose data part holds `count` distinct approvals. */
function withDecisions(count: number): Message {
  const decisions = Array.from({ length: count }, (_, i) => ({
    id: `call-${i}`,
    status: 'approved',
  }));
  return {
    messageId: 'm',
    parts: [{ content: { $case: 'data', value: { decisions } } }],
  } as unknown as Message;
}

describe('explicitDecisions (A2A data parts)', () => {
  it('takes up to 64 decisions', () => {
    expect(explicitDecisions(withDecisions(64))).toHaveLength(64);
  });

  it('refuses a 65th with invalid-decisions, naming the limit', () => {
    const refuse = () => explicitDecisions(withDecisions(65));
    let thrown: unknown;
    try {
      refuse();
    } catch (err) {
      thrown = err;
    }
    expect((thrown as { metadata?: { code?: string } }).metadata?.code).toBe('invalid-decisions');
    expect(refuse).toThrow(
      /Invalid decisions at \(root\): Too big: expected array to have <=64 items/,
    );
  });
});
