import { describe, expect, it } from 'vitest';
import { mayReceiveEvents } from '../../../lib/app/receive-policy.js';

describe('mayReceiveEvents', () => {
  it("delivers a session's events to its owner's connections only", () => {
    expect(mayReceiveEvents('alice', 'alice')).toBe(true);
    expect(mayReceiveEvents('alice', 'mallory')).toBe(false);
    expect(mayReceiveEvents('alice', undefined)).toBe(false);
  });

  it('delivers a message without an owner (an older worker) as before', () => {
    expect(mayReceiveEvents(undefined, 'mallory')).toBe(true);
  });
});
