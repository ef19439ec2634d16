import { describe, expect, it } from 'vitest';
import { shuffler } from '../../../bench/order.js';

describe('bench arm order', () => {
  it('draws every order of 4 arms and puts each arm last about a quarter of the time', () => {
    // Prepare
    const next = shuffler(['a', 'b', 'c', 'd'], 29);
    const orders = new Set<string>();
    const last = new Map<string, number>();

    // Act
    for (let draw = 0; draw < 2000; draw++) {
      const order = next();
      orders.add(order.join(''));
      const end = order[3] as string;
      last.set(end, (last.get(end) ?? 0) + 1);
    }

    // Assess
    expect(orders.size).toBe(24);
    for (const arm of ['a', 'b', 'c', 'd']) {
      // 500 expected; ±100 is over 5 standard deviations (σ ≈ 19).
      expect(last.get(arm)).toBeGreaterThan(400);
      expect(last.get(arm)).toBeLessThan(600);
    }
  });

  it('gives each draw a permutation of the arms', () => {
    // Prepare
    const arms = [1, 2, 3, 4, 5, 6];
    const next = shuffler(arms, 7);

    // Act
    const draws = Array.from({ length: 50 }, next);

    // Assess
    for (const draw of draws) expect([...draw].sort()).toEqual(arms);
  });
});
