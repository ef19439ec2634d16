import { describe, expect, it } from 'vitest';
import {
  EventBatcher,
  type EventsMessage,
  eventsFifoKeys,
  MemoryDelivery,
  runJobFifoKeys,
} from '../../../lib/transport/index.js';

const message = (runId: string, seq: number): EventsMessage => ({
  type: 'events',
  sessionId: 's1',
  runId,
  seq,
  events: [{ type: 'message-end', runId, messageId: `m${seq}` }],
});

describe('MemoryDelivery', () => {
  it('keeps copies of what it delivered and lists a run’s events by seq', async () => {
    // Prepare
    const delivery = new MemoryDelivery();
    const first = message('r1', 0);

    // Act
    await delivery.deliver(message('r1', 1));
    await delivery.deliver(first);
    await delivery.deliver(message('r2', 0));
    first.seq = 99;

    // Assess
    expect(delivery.delivered.map((m) => m.seq)).toEqual([1, 0, 0]);
    expect(delivery.events('r1').map((e) => (e.type === 'message-end' ? e.messageId : ''))).toEqual(
      ['m0', 'm1'],
    );
  });

  it('fails a delivery when told to, and the batcher surfaces it', async () => {
    // Prepare
    const failure = new Error('throttled');
    const delivery = new MemoryDelivery({ fail: (m) => (m.seq === 1 ? failure : undefined) });
    const batcher = new EventBatcher({
      sessionId: 's1',
      runId: 'r1',
      sink: (m) => delivery.deliver(m),
    });

    // Act
    await batcher.push({ type: 'message-start', runId: 'r1', messageId: 'm' });
    await batcher.flush();
    const pushed = batcher.push({
      type: 'run-error',
      runId: 'r1',
      code: 'model-error',
      message: 'x',
    });

    // Assess
    await expect(pushed).rejects.toBe(failure);
    expect(delivery.delivered).toHaveLength(1);
  });
});

describe('FIFO keys', () => {
  it('groups run jobs by session and dedups them by (principal, session, requestId)', () => {
    // Prepare
    const job = (principal: string, sessionId: string, requestId: string) =>
      runJobFifoKeys({
        kind: 'run',
        requestId,
        principal,
        agent: 'a',
        sessionId,
        runId: 'r1',
        input: 'hi',
        enqueuedAt: 1,
      });

    // Act
    const keys = job('alice', 's1', 'q1');

    // Assess
    expect(keys.groupId).toBe('s1');
    expect(keys.deduplicationId).toMatch(/^[0-9a-f]{64}$/);
    expect(job('alice', 's1', 'q1')).toEqual(keys);
    // Another user's equal requestId, or the same one in another session, is another job.
    expect(job('bob', 's1', 'q1').deduplicationId).not.toBe(keys.deduplicationId);
    expect(job('alice', 's2', 'q1').deduplicationId).not.toBe(keys.deduplicationId);
    // No separator trick makes two lists of parts collide.
    expect(job('a|b', 'c', 'q1').deduplicationId).not.toBe(job('a', 'b|c', 'q1').deduplicationId);
  });

  it('dedups event batches by run and seq, hashing ids past 128 characters', () => {
    // Act
    const short = eventsFifoKeys({ message: message('r1', 3), sentAt: 1 });
    const long = eventsFifoKeys({ message: message('r'.repeat(128), 3), sentAt: 1 });

    // Assess
    expect(short).toEqual({ groupId: 's1', deduplicationId: 'r1.3' });
    expect(long.deduplicationId).toMatch(/^[0-9a-f]{64}$/);
  });
});
