import { describe, expect, it } from 'vitest';
import {
  OFFLINE_TOKENS_PER_SECOND,
  offlineChunkDelayMs,
} from '../../../lib/local/offline-model.js';

describe('offlineChunkDelayMs (AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND)', () => {
  it('paces 2-token chunks at the default, the rate given, or not at all with 0', () => {
    expect(offlineChunkDelayMs({})).toBe(2000 / OFFLINE_TOKENS_PER_SECOND);
    expect(offlineChunkDelayMs({ AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND: '' })).toBe(50);
    expect(offlineChunkDelayMs({ AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND: '20' })).toBe(100);
    expect(offlineChunkDelayMs({ AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND: '0' })).toBe(0);
  });

  it('refuses what is not a rate, naming the variable', () => {
    for (const bad of ['fast', '-1', 'Infinity']) {
      expect(() => offlineChunkDelayMs({ AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND: bad })).toThrow(
        `AGENT_KERNEL_OFFLINE_TOKENS_PER_SECOND=${bad}`,
      );
    }
  });
});
