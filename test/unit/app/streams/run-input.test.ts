import { describe, expect, it } from 'vitest';
import { publicRun, RunRecords } from '../../../../lib/app/run-records.js';
import { InMemoryRunRecordStore } from '../../../../lib/stores/memory/run-record-store.js';

const ref = { runId: 'r1', sessionId: 's1', agent: 'echo', owner: 'alice', incarnation: 'i1' };

describe('run records keep the user input', () => {
  it('a queued run keeps its input through start and finish, and clients read it', async () => {
    const store = new InMemoryRunRecordStore();
    const records = new RunRecords(store);
    await records.queued({ ...ref, input: 'hello there' });
    const attempt = await records.start(ref);
    await records.finished(attempt, {
      status: 'completed',
      runId: 'r1',
      sessionId: 's1',
      agent: 'echo',
      text: 'hi',
    });
    const record = await store.get('s1', 'r1');
    expect(record?.input).toBe('hello there');
    expect(publicRun(record as NonNullable<typeof record>).input).toBe('hello there');
  });

  it('a resume (no input of its own) keeps the input the run started with', async () => {
    const store = new InMemoryRunRecordStore();
    const records = new RunRecords(store);
    const parts = [{ type: 'text', text: 'book it' }];
    const first = await records.start({ ...ref, input: parts });
    await records.finished(first, {
      status: 'paused',
      runId: 'r1',
      sessionId: 's1',
      agent: 'echo',
      interruptions: [],
    });
    const resumed = await records.start(ref);
    await records.failed(resumed, { code: 'model-error', message: 'down' });
    expect((await store.get('s1', 'r1'))?.input).toEqual(parts);
  });
});
