import { describe, expect, it } from 'vitest';
import { awaitRunEnd, hasEnded, orphanedBy, replyOf } from '../../../../lib/app/jobs/run-end.js';
import type { RunRecord } from '../../../../lib/app/ports/run-records.js';

const at = (status: RunRecord['status'], extra: Partial<RunRecord> = {}): RunRecord => ({
  schemaVersion: 1,
  runId: 'r1',
  sessionId: 's1',
  agent: 'demo',
  status,
  createdAt: 1,
  updatedAt: 1,
  ...extra,
});
const reply = { status: 'completed', runId: 'r1', sessionId: 's1', agent: 'demo', text: 'Hi' };

describe('the end of a run as its record shows it', () => {
  it.each([
    ['completed with its terminal seq', at('completed', { reply, terminalSeq: 2 }), true],
    ['completed without one (an older record)', at('completed', { reply }), false],
    ['running', at('running', { terminalSeq: 2 }), false],
    [
      'timed-out and to be retried (no terminal seq)',
      at('timed-out', { error: { code: 'run-timeout', message: 'x' } }),
      false,
    ],
    [
      'failed for good',
      at('failed', { error: { code: 'model-error', message: 'x' }, terminalSeq: 4 }),
      true,
    ],
  ])('%s: ended is %s', (_name, record, ended) => {
    expect(hasEnded(record)).toBe(ended);
  });

  it('counts a pause only while its paused run waits again', () => {
    // Prepare
    const paused = at('paused', { reply: { interruptions: [{ id: 'c' }] }, terminalSeq: 1 });

    // Assess
    expect(hasEnded(paused, true)).toBe(true);
    expect(hasEnded(paused, false)).toBe(false);
  });

  it('waits for the winner to end the run, reading with backoff on a fake clock', async () => {
    // Prepare
    let now = 0;
    const records = [at('running'), at('running'), at('completed', { reply, terminalSeq: 3 })];
    const pauses: number[] = [];

    // Act
    const ended = await awaitRunEnd(async () => records.shift(), {
      until: 10_000,
      now: () => now,
      sleep: async (ms) => {
        pauses.push(ms);
        now += ms;
      },
    });

    // Assess
    expect(ended).toMatchObject({ status: 'completed' });
    expect(pauses).toEqual([50, 100]);
  });

  it('gives up at the deadline', async () => {
    // Prepare
    let now = 0;

    // Act
    const ended = await awaitRunEnd(async () => at('running'), {
      until: 1_000,
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    });

    // Assess
    expect(ended).toBeUndefined();
    expect(now).toBeLessThanOrEqual(1_000);
  });

  it('stops at once when no attempt can end the run any more (orphaned)', async () => {
    // Prepare
    let now = 0;
    let reads = 0;

    // Act
    const ended = await awaitRunEnd(
      async () => {
        reads += 1;
        return at('running');
      },
      {
        until: 60_000,
        orphaned: async () => true,
        now: () => now,
        sleep: async (ms) => {
          now += ms;
        },
      },
    );

    // Assess
    expect(ended).toBeUndefined();
    expect(reads).toBe(1);
    expect(now).toBe(0);
  });

  it.each([
    ['the session is gone', undefined, at('running'), true],
    [
      'the session lives again (another incarnation)',
      { incarnation: 'life-2' },
      at('running', { incarnation: 'life-1' }),
      true,
    ],
    [
      'another owns the id now',
      { owner: 'bob', incarnation: 'life-1' },
      at('running', { owner: 'alice', incarnation: 'life-1' }),
      true,
    ],
    [
      'the record is of the current life',
      { owner: 'alice', incarnation: 'life-1' },
      at('running', { owner: 'alice', incarnation: 'life-1' }),
      false,
    ],
  ])('calls a run orphaned when %s: %s', async (_name, session, record, orphaned) => {
    const check = orphanedBy(
      async () => session,
      async () => false,
    );
    expect(await check(record)).toBe(orphaned);
  });

  it('calls a run without a record orphaned only once its paused run is gone too', async () => {
    const session = async () => ({ incarnation: 'life-1' });
    expect(await orphanedBy(session, async () => true)(undefined)).toBe(false);
    expect(await orphanedBy(session, async () => false)(undefined)).toBe(true);
  });

  it('answers the stored reply, or throws the stored error', () => {
    expect(replyOf(at('completed', { reply }))).toEqual(reply);
    expect(() =>
      replyOf(at('failed', { error: { code: 'model-error', message: 'boom' } })),
    ).toThrow('boom');
  });
});
