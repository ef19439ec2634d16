import { describe, expect, it } from 'vitest';
import { retrying, settled } from '../../../../lib/app/jobs/retry.js';

describe('the one retry helper', () => {
  it('tries up to `attempts` times with doubling pauses, then throws the last error', async () => {
    // Prepare
    let calls = 0;
    const pauses: number[] = [];

    // Act
    const result = retrying(
      async () => {
        calls++;
        throw new Error(`fail ${calls}`);
      },
      { attempts: 3, baseMs: 100, sleep: async (ms) => void pauses.push(ms) },
    );

    // Assess
    await expect(result).rejects.toThrow('fail 3');
    expect(calls).toBe(3);
    expect(pauses).toHaveLength(2);
    expect(pauses[0]).toBeGreaterThanOrEqual(50);
    expect(pauses[0]).toBeLessThanOrEqual(100);
    expect(pauses[1]).toBeGreaterThanOrEqual(100);
    expect(pauses[1]).toBeLessThanOrEqual(200);
  });

  it('starts no try past `until`', async () => {
    // Prepare
    let calls = 0;

    // Act
    const result = retrying(
      async () => {
        calls++;
        throw new Error('no');
      },
      { attempts: 10, until: 1_000, now: () => 990, sleep: async () => undefined },
    );

    // Assess
    await expect(result).rejects.toThrow('no');
    expect(calls).toBe(1);
  });

  it('settled answers whether the step ever succeeded and reports the last error', async () => {
    // Prepare
    const failures: unknown[] = [];
    let calls = 0;

    // Act
    const ok = await settled(
      async () => {
        if (++calls < 2) throw new Error('once');
      },
      { sleep: async () => undefined },
    );
    const never = await settled(
      async () => {
        throw new Error('always');
      },
      { attempts: 2, sleep: async () => undefined, failed: (err) => failures.push(err) },
    );

    // Assess
    expect(ok).toBe(true);
    expect(never).toBe(false);
    expect(failures).toHaveLength(1);
  });
});
