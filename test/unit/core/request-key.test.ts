import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyRequestKey } from '../../../lib/core/index.js';

/** A projection that counts how many items it had to serialise (a memo miss each). */
function counting() {
  const seen = { count: 0 };
  const project = (item: unknown) => {
    seen.count++;
    return item;
  };
  return { seen, project };
}

const message = (i: number) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}` });

describe('historyRequestKey', () => {
  it('hashes only the items added since the last step when the history is appended to', () => {
    // Prepare
    const { seen, project } = counting();
    const history = Array.from({ length: 200 }, (_, i) => message(i));
    historyRequestKey('t', { tools: ['pay'] }, history, project);
    seen.count = 0;

    // Act: the next step, the same item objects and two new ones.
    history.push(message(200), message(201));
    historyRequestKey('t', { tools: ['pay'] }, history, project);

    // Assess
    expect(seen.count).toBe(2);
  });

  it('gives the same key for the same content in other objects (another attempt, another process)', () => {
    // Prepare
    const history = Array.from({ length: 50 }, (_, i) => message(i));
    const warm = historyRequestKey('t', { tools: [] }, history);
    historyRequestKey('t', { tools: [] }, [...history, message(50)]);

    // Act: fresh objects, keys in another order, nothing memoised for them.
    const copy = history.map((m) => ({ content: m.content, role: m.role }));
    const cold = historyRequestKey('t', { tools: [] }, copy);

    // Assess
    expect(cold).toBe(warm);
    expect(warm).toMatch(/^t:h:[0-9a-f]{64}$/);
  });

  it('changes with any item, the order, the rest and the scope', () => {
    // Prepare
    const history = [message(0), message(1), message(2)];
    const key = historyRequestKey('t', { tools: ['a'] }, history);

    // Act
    const variants = [
      historyRequestKey('t', { tools: ['a'] }, [
        message(0),
        { ...message(1), content: 'x' },
        message(2),
      ]),
      historyRequestKey('t', { tools: ['a'] }, [message(1), message(0), message(2)]),
      historyRequestKey('t', { tools: ['a'] }, history.slice(0, 2)),
      historyRequestKey('t', { tools: ['b'] }, history),
      historyRequestKey('u', { tools: ['a'] }, history),
    ];

    // Assess
    expect(new Set([key, ...variants]).size).toBe(6);
  });

  it('does not reuse an item hash memoised after another prefix', () => {
    // Prepare: the same object, first at position 2, then at position 1 after another item.
    const shared = message(9);
    historyRequestKey('t', {}, [message(0), message(1), shared]);

    // Act
    const reused = historyRequestKey('t', {}, [message(5), shared]);
    const fresh = historyRequestKey('t', {}, [message(5), { ...shared }]);

    // Assess
    expect(reused).toBe(fresh);
  });

  it('memoised or not, a history gives one key (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 12 }), fc.nat(12), (items, cut) => {
        const history = items.map((value) => ({ value }));
        // Warm the memo with a prefix, then key the whole: the same as a cold copy's key.
        historyRequestKey('p', {}, history.slice(0, cut));
        const warm = historyRequestKey('p', {}, history);
        const cold = historyRequestKey('p', {}, structuredClone(history));
        return warm === cold;
      }),
    );
  });
});
