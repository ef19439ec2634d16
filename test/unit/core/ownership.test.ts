import { describe, expect, it } from 'vitest';
import { boundTo, isOwner } from '../../../lib/core/ownership.js';

describe('the one owner rule', () => {
  it('a session is its owner’s only; an ownerless one is no principal’s', () => {
    expect(isOwner('alice', 'alice')).toBe(true);
    expect(isOwner('alice', 'mallory')).toBe(false);
    expect(isOwner('alice', undefined)).toBe(false);
    expect(isOwner(undefined, 'mallory')).toBe(false);
    // The Runtime used as a library, with no principals at all.
    expect(isOwner(undefined, undefined)).toBe(true);
  });

  it('an item is reachable only in the life of the session it was kept in', () => {
    const life = { owner: 'alice', incarnation: 'i1' };
    expect(boundTo({ owner: 'alice', incarnation: 'i1' }, life)).toBe(true);
    expect(boundTo({ owner: 'alice', incarnation: 'i0' }, life)).toBe(false);
    expect(boundTo({ owner: 'bob', incarnation: 'i1' }, life)).toBe(false);
    expect(boundTo({ owner: 'alice' }, life)).toBe(false);
    expect(boundTo({ owner: 'alice', incarnation: 'i1' }, undefined)).toBe(false);
    // Stored before incarnations: only a session of that time matches.
    expect(boundTo({}, { owner: 'alice' })).toBe(true);
    expect(boundTo({}, life)).toBe(false);
  });
});
