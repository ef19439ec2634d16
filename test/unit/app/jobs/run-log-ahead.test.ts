import { describe, expect, it } from 'vitest';
import { RunLog, RunSuperseded, SEQ_BLOCK } from '../../../../lib/app/jobs/run-log.js';
import type {
  RunRecord,
  RunRecordStore,
  RunTransition,
} from '../../../../lib/app/ports/run-records.js';

const base = {
  schemaVersion: 1 as const,
  runId: 'r1',
  sessionId: 's1',
  owner: 'alice',
  incarnation: 'i1',
  agent: 'a',
  createdAt: 1,
};

/** A record store whose writes wait until released, and answer `applied` as told. */
function gatedStore(answers: boolean[]) {
  const writes: RunRecord[] = [];
  const gates: (() => void)[] = [];
  const store: RunRecordStore = {
    put: async () => undefined,
    get: async () => undefined,
    async transition(record): Promise<RunTransition> {
      writes.push(record);
      await new Promise<void>((resolve) => gates.push(resolve));
      const applied = answers.shift() ?? true;
      return applied ? { applied } : { applied, current: { ...record, status: 'completed' } };
    },
  };
  const release = async () => {
    for (let i = 0; i < 50 && gates.length === 0; i++) await Promise.resolve();
    gates.shift()?.();
  };
  return { store, writes, release };
}

const logOf = (store: RunRecordStore) =>
  new RunLog(store, base, undefined, {}, { metrics: { count: () => undefined } });

describe('RunLog.reserveAhead: the first seq block written before the first send', () => {
  it('makes the one write the first send would make; the send waits for it and writes nothing', async () => {
    // Prepare
    const { store, writes, release } = gatedStore([true]);
    const log = logOf(store);

    // Act
    log.reserveAhead();
    let sent = false;
    const first = log.reserve(0).then(() => {
      sent = true;
    });
    await Promise.resolve();
    const beforeRelease = sent;
    await release();
    await first;

    // Assess
    expect(beforeRelease).toBe(false);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatchObject({ status: 'running', nextSeq: SEQ_BLOCK + 1 });
    expect(log.reservedSeq).toBe(SEQ_BLOCK + 1);
    expect(log.running).toBe(true);
  });

  it('is made once however often it is asked for, and later blocks follow it', async () => {
    // Prepare
    const { store, writes, release } = gatedStore([true, true]);
    const log = logOf(store);

    // Act
    log.reserveAhead();
    log.reserveAhead();
    await release();
    await log.reserve(SEQ_BLOCK);
    const next = log.reserve(SEQ_BLOCK + 1);
    await release();
    await next;

    // Assess
    expect(writes.map((w) => w.nextSeq)).toEqual([SEQ_BLOCK + 1, 2 * SEQ_BLOCK + 2]);
  });

  it('a refused reservation ahead is made again by the first send, which throws RunSuperseded', async () => {
    // Prepare
    const { store, writes, release } = gatedStore([false, false]);
    const log = logOf(store);

    // Act
    log.reserveAhead();
    const first = log.reserve(0);
    await release();
    await release();

    // Assess
    await expect(first).rejects.toBeInstanceOf(RunSuperseded);
    expect(writes).toHaveLength(2);
    expect(log.running).toBe(false);
  });
});
