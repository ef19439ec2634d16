import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../lib/app/ports/run-records.js';
import { terminalEventOf } from '../../../lib/app/ports/run-records.js';
import { RUN_STALE_AFTER_MS, RunRecords, repairOf } from '../../../lib/app/run-records.js';
import type { Reply } from '../../../lib/core/requests.js';
import type { SessionData } from '../../../lib/core/session.js';
import { InMemoryRunRecordStore } from '../../../lib/stores/index.js';

const ref = { runId: 'r1', sessionId: 's1', agent: 'demo' };
const done: Reply = {
  status: 'completed',
  runId: 'r1',
  sessionId: 's1',
  agent: 'demo',
  text: 'Hi',
};
const at = (status: RunRecord['status'], extra: Partial<RunRecord> = {}): RunRecord => ({
  schemaVersion: 1,
  ...ref,
  status,
  createdAt: 1,
  updatedAt: 1,
  ...extra,
});

function session(extra: Partial<SessionData> = {}): SessionData {
  return {
    schemaVersion: 1,
    id: 's1',
    agent: 'demo',
    turns: 1,
    context: {},
    state: {},
    createdAt: 1,
    updatedAt: 1,
    ...extra,
  } as SessionData;
}

describe('RunRecords: the sync half of the one state machine', () => {
  it('records a sync run running, then completed with its terminal seq', async () => {
    // Prepare
    const store = new InMemoryRunRecordStore();
    const records = new RunRecords(store);

    // Act
    const attempt = await records.start(ref);
    const running = await store.get('s1', 'r1');
    await records.finished(attempt, done);

    // Assess
    expect(attempt.owned).toBe(true);
    expect(running).toMatchObject({ status: 'running' });
    expect(await store.get('s1', 'r1')).toMatchObject({
      status: 'completed',
      reply: { text: 'Hi' },
      terminalSeq: 0,
      nextSeq: 1,
    });
  });

  it.each(['running', 'completed'] as const)(
    'does not take a %s record, and a failure of that attempt writes nothing',
    async (status) => {
      // Prepare
      const store = new InMemoryRunRecordStore();
      await store.put(at(status, { nextSeq: 7 }));
      const records = new RunRecords(store);

      // Act
      const attempt = await records.start(ref);
      await records.failed(attempt, { code: 'model-error', message: 'boom' });

      // Assess
      expect(attempt.owned).toBe(false);
      expect(await store.get('s1', 'r1')).toEqual(at(status, { nextSeq: 7 }));
    },
  );

  it.each(['run-already-resumed', 'paused-run-not-found'])(
    'writes nothing for a resume refused as %s, even holding the record',
    async (code) => {
      // Prepare
      const store = new InMemoryRunRecordStore();
      await store.put(at('paused', { reply: { interruptions: [{ id: 'c' }] }, nextSeq: 3 }));
      const records = new RunRecords(store);

      // Act
      const attempt = await records.start(ref);
      const taken = await store.get('s1', 'r1');
      await records.failed(attempt, { code, message: 'refused' });

      // Assess
      expect(attempt.owned).toBe(true);
      expect(await store.get('s1', 'r1')).toEqual(taken);
    },
  );

  it('never writes a late completion over a completed run, nor queues one again', async () => {
    // Prepare
    const store = new InMemoryRunRecordStore();
    await store.put(at('completed', { reply: { text: 'first' } }));
    const records = new RunRecords(store);

    // Act
    await records.queued(ref);
    const attempt = await records.start(ref);
    await records.finished(attempt, { ...done, text: 'second' } as Reply);

    // Assess
    expect(await store.get('s1', 'r1')).toMatchObject({
      status: 'completed',
      reply: { text: 'first' },
    });
  });
});

describe('RunRecords.read: a record left running is repaired past the bound', () => {
  const truth = (data?: SessionData, paused?: { interruptions: unknown[]; status: 'pending' }) => ({
    session: async () => data,
    pausedRun: async () => paused as never,
  });

  it('states the bound: a Lambda’s 15 minutes and the 30 s claim margin', () => {
    expect(RUN_STALE_AFTER_MS).toBe(15 * 60_000 + 30_000);
  });

  it('leaves a running record alone within the bound, and repairs it from lastReply past it', async () => {
    // Prepare
    const store = new InMemoryRunRecordStore();
    await store.put(at('running', { updatedAt: 1_000, nextSeq: 5 }));
    const stored = session({ lastReply: { runId: 'r1', text: 'Stored.' } });

    // Act
    const within = await new RunRecords(store, () => 1_000 + RUN_STALE_AFTER_MS).read(
      's1',
      'r1',
      truth(stored),
    );
    const past = await new RunRecords(store, () => 1_001 + RUN_STALE_AFTER_MS).read(
      's1',
      'r1',
      truth(stored),
    );

    // Assess
    expect(within).toMatchObject({ status: 'running' });
    expect(past).toMatchObject({
      status: 'completed',
      reply: { status: 'completed', text: 'Stored.' },
      terminalSeq: 5,
      nextSeq: 6,
    });
    expect(await store.get('s1', 'r1')).toEqual(past);
  });

  it.each([
    [
      'a run whose turn count grew',
      at('running', { turnsBefore: 0 }),
      session({ turns: 1 }),
      'completed',
    ],
    [
      'a run the session marks paused',
      at('running'),
      session({ paused: [{ runId: 'r1', expiresAt: 9e15 }] } as never),
      'paused',
    ],
    [
      'a resume the session no longer marks paused',
      at('running', { reply: { status: 'paused' } }),
      session(),
      'completed',
    ],
    [
      'a run whose turn was never stored',
      at('running', { turnsBefore: 1 }),
      session({ turns: 1 }),
      'timed-out',
    ],
    ['a run with no session at all', at('running'), undefined, 'timed-out'],
  ])('repairs %s', (_name, record, data, status) => {
    // Act
    const repaired = repairOf(
      record,
      data,
      { interruptions: [{ id: 'c' }], status: 'pending' } as never,
      9,
    );

    // Assess
    expect(repaired.status).toBe(status);
    expect(terminalEventOf(repaired)).toBeDefined();
    if (status === 'timed-out') expect(repaired.error?.code).toBe('run-timeout');
  });
});

describe('run records are written through transitions only', () => {
  it('has no unconditional put of a run record in lib/app or lib/aws', () => {
    // Prepare
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
      });

    // Act
    const puts = [...files('lib/app'), ...files('lib/aws')].filter((file) =>
      /\b(runs|records|#store|store)\.put\(/.test(readFileSync(file, 'utf8')),
    );

    // Assess
    expect(puts).toEqual([]);
  });
});
